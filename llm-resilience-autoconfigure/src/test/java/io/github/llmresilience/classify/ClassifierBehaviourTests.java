package io.github.llmresilience.classify;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.llmresilience.classify.vendor.BuiltInClassifiers;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ClassifierBehaviourTests {

	@Test
	void unknownTypeFallsBackByStatusAndIsReported() {
		List<String> reported = new ArrayList<>();
		ProviderErrorClassifier classifier = BuiltInClassifiers.forProvider("openai", ClassifierSettings.defaults()
			.withListener((provider, status, type) -> reported.add(provider + "/" + status + "/" + type)));

		Verdict fourHundred = classifier.classify(json(409 + 9, "{\"error\":{\"type\":\"teapot_error\"}}"));
		Verdict fiveHundred = classifier.classify(json(500, "{\"error\":{\"type\":\"brand_new_error\"}}"));

		assertThat(fourHundred.outcome()).isEqualTo(Outcome.REQUEST);
		assertThat(fiveHundred.outcome()).isEqualTo(Outcome.AVAILABILITY);
		assertThat(reported).containsExactly("openai/418/teapot_error", "openai/500/brand_new_error");
	}

	@Test
	void knownAnswersAreNotReported() {
		List<String> reported = new ArrayList<>();
		ProviderErrorClassifier classifier = BuiltInClassifiers.forProvider("anthropic",
				ClassifierSettings.defaults().withListener((provider, status, type) -> reported.add(type)));
		for (Fixtures.Case fixture : Fixtures.vendorErrors()) {
			if (fixture.provider().equals("anthropic")) {
				classifier.classify(fixture.response());
			}
		}
		classifier.classify(ProviderResponse.of(503, Map.of(), "<html>Service Unavailable</html>"));
		assertThat(reported).isEmpty();
	}

	@Test
	void aListenerThatThrowsDoesNotBreakClassification() {
		ProviderErrorClassifier classifier = BuiltInClassifiers.forProvider("openai",
				ClassifierSettings.defaults().withListener((provider, status, type) -> {
					throw new IllegalStateException("boom");
				}));
		assertThat(classifier.classify(ProviderResponse.of(418, Map.of(), "")).outcome()).isEqualTo(Outcome.REQUEST);
	}

	@Test
	void timeoutAndConnectionFailureAreAvailability() {
		ProviderErrorClassifier classifier = BuiltInClassifiers.forProvider("gemini");
		assertThat(classifier.classify(ProviderResponse.timeout()).outcome()).isEqualTo(Outcome.AVAILABILITY);
		Verdict refused = classifier
			.classify(ProviderResponse.connectionFailure(new IOException("Connection refused")));
		assertThat(refused.outcome()).isEqualTo(Outcome.AVAILABILITY);
		assertThat(refused.errorType()).contains("connection");
		assertThat(classifier.classify(null).outcome()).isEqualTo(Outcome.AVAILABILITY);
	}

	@Test
	void aBodyOfManyMegabytesIsReadOnlyAsFarAsTheBoundedPrefix() {
		// The error object starts after 5 MB of padding: past the prefix, so the status
		// decides.
		String padding = " ".repeat(5 * 1024 * 1024);
		String body = "{\"pad\":\"" + padding + "\",\"error\":{\"code\":\"insufficient_quota\"}}";
		Verdict verdict = BuiltInClassifiers.forProvider("openai").classify(json(429, body));
		assertThat(verdict.outcome()).isEqualTo(Outcome.THROTTLED);
		// The same error within the prefix is read.
		Verdict near = BuiltInClassifiers.forProvider("openai")
			.classify(json(429, "{\"error\":{\"code\":\"insufficient_quota\"},\"pad\":\"" + padding + "\"}"));
		assertThat(near.outcome()).isEqualTo(Outcome.QUOTA);
	}

	@Test
	void deeplyNestedBodiesDoNotOverflowTheStack() {
		String body = "[".repeat(200_000);
		for (String provider : BuiltInClassifiers.PROVIDER_IDS) {
			assertThat(BuiltInClassifiers.forProvider(provider).classify(json(400, body)).outcome())
				.isEqualTo(Outcome.REQUEST);
		}
	}

	@Test
	void nonUtf8BytesAreReplacedNotThrown() {
		byte[] body = { (byte) 0xC3, (byte) 0x28, '{', '"', 'e', (byte) 0xFF, (byte) 0xFE };
		Verdict verdict = BuiltInClassifiers.forProvider("cohere").classify(ProviderResponse.of(429, Map.of(), body));
		assertThat(verdict.outcome()).isEqualTo(Outcome.THROTTLED);
	}

	@Test
	void twoHundredWithoutMarkersIsASuccessWithoutParsing() {
		Verdict verdict = BuiltInClassifiers.forProvider("openai")
			.classify(json(200, "{\"choices\":[{\"message\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}"));
		assertThat(verdict).isSameAs(Verdict.success());
	}

	@Test
	void anErrorObjectInsideATwoHundredIsClassified() {
		// Some OpenAI-compatible gateways answer 200 with an error envelope.
		Verdict verdict = BuiltInClassifiers.forProvider("openai-compatible")
			.classify(json(200, "{\"error\":{\"code\":\"rate_limit_exceeded\",\"message\":\"slow down\"}}"));
		assertThat(verdict.outcome()).isEqualTo(Outcome.THROTTLED);
	}

	@Test
	void errorTypeIsSanitizedForUseAsAMetricTag() {
		Verdict verdict = BuiltInClassifiers.forProvider("openai")
			.classify(json(400, "{\"error\":{\"code\":\"weird code\\n" + "x".repeat(200) + "\"}}"));
		assertThat(verdict.errorType()).hasValueSatisfying((type) -> {
			assertThat(type).hasSize(64);
			assertThat(type).startsWith("weird_code_x");
		});
	}

	@Test
	void verdictBooleansFollowTheDesignTable() {
		assertThat(flags(Outcome.SUCCESS)).isEqualTo("---");
		assertThat(flags(Outcome.AVAILABILITY)).isEqualTo("RCF");
		assertThat(flags(Outcome.THROTTLED)).isEqualTo("--F");
		assertThat(flags(Outcome.QUOTA)).isEqualTo("--F");
		assertThat(flags(Outcome.CREDENTIAL)).isEqualTo("--F");
		assertThat(flags(Outcome.REQUEST)).isEqualTo("---");
		assertThat(flags(Outcome.CONTENT_FILTER)).isEqualTo("---");
		assertThat(flags(Outcome.STREAM_INTERRUPTED)).isEqualTo("-C-");
	}

	@Test
	void verdictNeverCarriesANegativeHint() {
		assertThat(Verdict.of(Outcome.THROTTLED, Duration.ofSeconds(-3), null).waitHint()).contains(Duration.ZERO);
	}

	@Test
	void providerResponseToStringShowsNoHeadersOrBody() {
		ProviderResponse response = ProviderResponse.of(401, Map.of("authorization", List.of("Bearer sk-secret")),
				"{\"error\":{\"message\":\"Incorrect API key provided: sk-secret\"}}");
		assertThat(response.toString()).doesNotContain("sk-secret").contains("401");
	}

	private static String flags(Outcome outcome) {
		Verdict verdict = Verdict.of(outcome);
		return (verdict.retry() ? "R" : "-") + (verdict.countsAsFailure() ? "C" : "-")
				+ (verdict.failover() ? "F" : "-");
	}

	private static ProviderResponse json(int status, String body) {
		return ProviderResponse.of(status, Map.of("Content-Type", List.of("application/json")), body);
	}

}
