package io.github.llmresilience.benchmarks;

import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.ProviderErrorClassifier;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.classify.vendor.BuiltInClassifiers;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * What reading a provider's JSON costs, one answer per run: a few representative error
 * bodies of the shared fixtures, whose classification parses the body, one ordinary chunk
 * of an OpenAI chat stream (parsed for every chunk of every streamed answer), and the
 * largest error body a classifier reads. Unlike {@link ClassificationBenchmark}, whose
 * scores are means over a class of cases, each row here is one body, so that a change of
 * JSON reader shows body by body.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ProviderJsonBenchmark {

	/** An ordinary chat-completions stream chunk, read as one stream event. */
	static final String OPENAI_CHUNK = "openai-sse-content-chunk";

	/** The 64 KiB 400 of {@link ClassificationBenchmark#largeError()}. */
	static final String ERROR_64KIB = "openai-400-64kib";

	static final String CHUNK_DATA = "{\"id\":\"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT\",\"object\":\"chat.completion.chunk\","
			+ "\"created\":1741569952,\"model\":\"gpt-4o-2024-08-06\",\"system_fingerprint\":\"fp_fc9f1d7035\","
			+ "\"choices\":[{\"index\":0,\"delta\":{\"content\":\" capital of France\"},\"logprobs\":null,"
			+ "\"finish_reason\":null}]}";

	/** A fixture id of the shared file, or one of the synthetic answers above. */
	@Param({ "openai-429-insufficient-quota", "anthropic-529-overloaded", "gemini-429-free-tier-input-tpm",
			"anthropic-sse-error-overloaded-midstream", "openai-stream-chat-error-chunk", OPENAI_CHUNK, ERROR_64KIB })
	public String answer;

	/** A fixture file of the shared format; empty for the copy in the jar. */
	@Param("")
	public String fixtures;

	private ProviderErrorClassifier classifier;

	private ProviderResponse response;

	@Setup
	public void setUp() {
		VendorFixtures.Case fixture = find(this.answer, this.fixtures);
		this.classifier = BuiltInClassifiers.forProvider(fixture.vendor());
		this.response = fixture.response();
		// Measuring an answer that takes the wrong path would measure the wrong thing.
		Outcome outcome = this.classifier.classify(this.response).outcome();
		if (!fixture.accepts(outcome)) {
			throw new IllegalStateException(
					fixture.id() + " classified as " + outcome + ", expected " + fixture.expected());
		}
	}

	@Benchmark
	public Verdict classifyAnswer() {
		return this.classifier.classify(this.response);
	}

	static VendorFixtures.Case find(String answer, String fixtures) {
		switch (answer) {
			case OPENAI_CHUNK:
				return new VendorFixtures.Case(OPENAI_CHUNK, "openai", Outcome.SUCCESS, List.of(),
						ProviderResponse.streamEvent(null, CHUNK_DATA));
			case ERROR_64KIB:
				return ClassificationBenchmark.cases(ClassificationBenchmark.ERROR_64KIB, fixtures).get(0);
			default:
				for (VendorFixtures.Case fixture : VendorFixtures.load(fixtures)) {
					if (fixture.id().equals(answer)) {
						return fixture;
					}
				}
				throw new IllegalArgumentException("No fixture case " + answer);
		}
	}

}
