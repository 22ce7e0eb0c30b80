package io.github.llmresilience.classify.vendor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import io.github.llmresilience.classify.ClassifierSettings;
import io.github.llmresilience.classify.Fixtures;
import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.ProviderErrorClassifier;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.Verdict;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Runs every case of the shared provider fixtures, one test each, and this project's own
 * extra cases.
 */
class ProviderFixturesTests {

	private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-02-25T20:02:14Z"), ZoneOffset.UTC);

	static Stream<Fixtures.Case> sharedCases() {
		return Fixtures.vendorErrors().stream();
	}

	static Stream<Fixtures.Case> extraCases() {
		return Fixtures.extraVendorErrors().stream();
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("sharedCases")
	void sharedFixtureIsClassifiedAsExpected(Fixtures.Case fixture) {
		assertClassified(fixture);
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("extraCases")
	void extraFixtureIsClassifiedAsExpected(Fixtures.Case fixture) {
		assertClassified(fixture);
	}

	@Test
	void everySharedCaseRunsAndEveryVendorIsCovered() {
		List<Fixtures.Case> cases = Fixtures.vendorErrors();
		assertThat(cases).hasSize(48);
		// The shared file covers the vendors it was written for; the profiles of issue 23
		// are covered by the corpus of real answers (RealAnswersTests).
		assertThat(BuiltInClassifiers.PROVIDER_IDS)
			.containsAll(cases.stream().map(Fixtures.Case::provider).distinct().toList());
	}

	@Test
	void copyOfSharedFixturesHasNotDrifted() throws IOException {
		Path shared = sharedFixtures();
		if (shared == null) {
			// A clone outside the workplace has only the committed copy, which is what
			// runs.
			return;
		}
		try (var in = getClass().getResourceAsStream("/fixtures/vendor-errors.json")) {
			assertThat(in).isNotNull();
			assertThat(new String(in.readAllBytes())).isEqualTo(Files.readString(shared));
		}
	}

	@Test
	void streamFixturesAreAlsoClassifiedEventByEvent() {
		List<Fixtures.Case> sse = new ArrayList<>();
		for (Fixtures.Case fixture : Fixtures.vendorErrors()) {
			if (fixture.stream() && !fixture.isEventStreamMessage()) {
				sse.add(fixture);
			}
		}
		assertThat(sse).isNotEmpty();
		for (Fixtures.Case fixture : sse) {
			ProviderErrorClassifier classifier = classifier(fixture.provider());
			Verdict worst = Verdict.success();
			for (SseEvents.Event event : SseEvents.parse(fixture.bodyText())) {
				Verdict verdict = classifier.classify(ProviderResponse.streamEvent(event.name(), event.data()));
				if (verdict.outcome() != Outcome.SUCCESS) {
					worst = verdict;
				}
			}
			assertThat(fixture.acceptable()).as(fixture.id()).contains(worst.outcome());
		}
	}

	@Test
	void unknownVendorIdListsTheKnownOnes() {
		assertThatIllegalArgumentException().isThrownBy(() -> BuiltInClassifiers.forProvider("llamafile"))
			.withMessageContaining("'llamafile'")
			.withMessageContaining("openai, azure-openai, anthropic, gemini, vertex-ai, bedrock, mistral, cohere, "
					+ "azure-ai-foundry, xai, deepseek, groq, together, fireworks, perplexity, openrouter, cerebras, "
					+ "sambanova, deepinfra, zai, dashscope, moonshot, vllm, tgi, ollama, litellm, openai-compatible");
	}

	@Test
	void everyVendorIdHasAClassifierNamedAfterIt() {
		for (String id : BuiltInClassifiers.PROVIDER_IDS) {
			assertThat(BuiltInClassifiers.forProvider(id).provider()).isEqualTo(id);
		}
	}

	private static void assertClassified(Fixtures.Case fixture) {
		Verdict verdict = classifier(fixture.provider()).classify(fixture.response());
		assertThat(verdict.outcome()).as("%s outcome", fixture.id()).isIn(fixture.acceptable());
		assertThat(verdict.retry()).as("retry").isEqualTo(verdict.outcome().retry());
		assertThat(verdict.countsAsFailure()).as("countsAsFailure").isEqualTo(verdict.outcome().countsAsFailure());
		assertThat(verdict.failover()).as("failover").isEqualTo(verdict.outcome().failover());
		if (fixture.retryAfterMs() != null) {
			assertThat(verdict.waitHint()).as("%s wait hint", fixture.id()).isPresent();
			assertThat(verdict.waitHint().get().toMillis()).as("%s wait hint ms", fixture.id())
				.isCloseTo(fixture.retryAfterMs(), org.assertj.core.data.Offset.offset(1000L));
		}
		if (verdict.waitHint().isPresent()) {
			assertThat(verdict.waitHint().get().isNegative()).isFalse();
		}
	}

	private static ProviderErrorClassifier classifier(String provider) {
		return BuiltInClassifiers.forProvider(provider,
				ClassifierSettings.defaults().withClock(CLOCK).withQuotaThreshold(Duration.ofHours(1)));
	}

	private static Path sharedFixtures() {
		String configured = System.getProperty("llm.resilience.fixtures");
		Path path = (configured != null) ? Path.of(configured, "vendor-errors.json") : null;
		return (path != null && Files.isRegularFile(path)) ? path : null;
	}

}
