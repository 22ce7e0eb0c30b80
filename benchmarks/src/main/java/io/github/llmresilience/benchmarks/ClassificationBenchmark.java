package io.github.llmresilience.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * What classifying one provider answer costs. For each outcome class of the shared
 * fixtures, one operation classifies the next case of that class in turn, so the score is
 * the mean over the class's cases. Three synthetic cases complete it: an ordinary 200
 * chat completion (what a protected HTTP call classifies when all is well), and a 64 KiB
 * error body and a 64 KiB success body (the most a classifier reads).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ClassificationBenchmark {

	/** The synthetic case classes, beside the fixtures' outcomes. */
	static final String SUCCESS_200 = "SUCCESS_200";

	static final String ERROR_64KIB = "ERROR_64KIB";

	static final String SUCCESS_64KIB = "SUCCESS_64KIB";

	static final int SIXTY_FOUR_KIB = 64 * 1024;

	@Param({ "THROTTLED", "AVAILABILITY", "QUOTA", "CREDENTIAL", "REQUEST", "CONTENT_FILTER", SUCCESS_200, ERROR_64KIB,
			SUCCESS_64KIB })
	public String caseClass;

	/** A fixture file of the shared format; empty for the copy in the jar. */
	@Param("")
	public String fixtures;

	private ProviderErrorClassifier[] classifiers;

	private ProviderResponse[] responses;

	private int next;

	@Setup
	public void setUp() {
		List<VendorFixtures.Case> cases = cases(this.caseClass, this.fixtures);
		this.classifiers = new ProviderErrorClassifier[cases.size()];
		this.responses = new ProviderResponse[cases.size()];
		for (int i = 0; i < cases.size(); i++) {
			VendorFixtures.Case fixture = cases.get(i);
			this.classifiers[i] = BuiltInClassifiers.forProvider(fixture.vendor());
			this.responses[i] = fixture.response();
			// Measuring a case that takes the wrong path would measure the wrong thing.
			Outcome outcome = this.classifiers[i].classify(this.responses[i]).outcome();
			if (!fixture.accepts(outcome)) {
				throw new IllegalStateException(
						fixture.id() + " classified as " + outcome + ", expected " + fixture.expected());
			}
		}
	}

	@Benchmark
	public Verdict classify() {
		int i = this.next;
		this.next = (i + 1 == this.responses.length) ? 0 : i + 1;
		return this.classifiers[i].classify(this.responses[i]);
	}

	/** The cases of one class: a fixture outcome or one of the synthetic classes. */
	static List<VendorFixtures.Case> cases(String caseClass, String fixtures) {
		switch (caseClass) {
			case SUCCESS_200:
				return List.of(new VendorFixtures.Case("openai-200-chat-completion", "openai", Outcome.SUCCESS,
						List.of(), ProviderResponse.of(200, JSON_HEADERS, chatCompletion("The capital of France is "
								+ "Paris. It has been the country's capital since the late 10th century."))));
			case ERROR_64KIB:
				return List.of(new VendorFixtures.Case("openai-400-64kib", "openai", Outcome.REQUEST, List.of(),
						ProviderResponse.of(400, JSON_HEADERS, largeError())));
			case SUCCESS_64KIB:
				return List.of(new VendorFixtures.Case("openai-200-64kib", "openai", Outcome.SUCCESS, List.of(),
						ProviderResponse.of(200, JSON_HEADERS, largeCompletion())));
			default:
				Outcome outcome = Outcome.valueOf(caseClass);
				List<VendorFixtures.Case> selected = new ArrayList<>();
				for (VendorFixtures.Case fixture : VendorFixtures.load(fixtures)) {
					if (fixture.expected() == outcome) {
						selected.add(fixture);
					}
				}
				if (selected.isEmpty()) {
					throw new IllegalArgumentException("No fixture case is expected to be " + outcome);
				}
				return selected;
		}
	}

	private static final Map<String, List<String>> JSON_HEADERS = Map.of("content-type", List.of("application/json"));

	private static String chatCompletion(String content) {
		return "{\"id\":\"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT\",\"object\":\"chat.completion\",\"created\":1741569952,"
				+ "\"model\":\"gpt-4o-2024-08-06\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
				+ "\"content\":\"" + content + "\",\"refusal\":null,\"annotations\":[]},\"logprobs\":null,"
				+ "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":19,\"completion_tokens\":10,"
				+ "\"total_tokens\":29,\"prompt_tokens_details\":{\"cached_tokens\":0,\"audio_tokens\":0},"
				+ "\"completion_tokens_details\":{\"reasoning_tokens\":0,\"audio_tokens\":0,"
				+ "\"accepted_prediction_tokens\":0,\"rejected_prediction_tokens\":0}},\"service_tier\":\"default\","
				+ "\"system_fingerprint\":\"fp_fc9f1d7035\"}";
	}

	/** A 200 completion of exactly 64 KiB: long answers are the common large body. */
	static String largeCompletion() {
		String frame = chatCompletion("");
		return chatCompletion(filler(SIXTY_FOUR_KIB - frame.length()));
	}

	/**
	 * A 400 of exactly 64 KiB whose message echoes the request, with the error type after
	 * it: the classifier must read the whole body to find it.
	 */
	static String largeError() {
		String head = "{\"error\":{\"message\":\"This model's maximum context length is 128000 tokens. However, your "
				+ "messages resulted in 190211 tokens. Please reduce the length of the messages: ";
		String tail = "\",\"type\":\"invalid_request_error\",\"param\":\"messages\",\"code\":\"context_length_exceeded\"}}";
		return head + filler(SIXTY_FOUR_KIB - head.length() - tail.length()) + tail;
	}

	private static String filler(int length) {
		String words = "the quick brown fox jumps over the lazy dog while the model keeps answering ";
		StringBuilder text = new StringBuilder(length);
		while (text.length() < length) {
			text.append(words, 0, Math.min(words.length(), length - text.length()));
		}
		return text.toString();
	}

}
