package io.github.llmresilience.execute;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.llmresilience.classify.ClassifierSettings;
import io.github.llmresilience.classify.ProviderClassifiers;
import io.github.llmresilience.classify.ProviderErrorClassifier;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.classify.vendor.BuiltInClassifiers;
import io.github.llmresilience.extract.ProviderAnswerException;
import io.github.llmresilience.target.Target;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A successful call reaches no classifier, so it parses no JSON: classification (and the
 * provider body it reads) is paid for on failures only.
 */
class SuccessPathClassificationTests {

	private final AtomicInteger classified = new AtomicInteger();

	private final LlmResilience resilience = LlmResilience.builder()
		.target(Target.of("primary", "openai"))
		.chain("chat", "primary")
		.classifiers(new ProviderClassifiers(List.of(new CountingClassifier()), ClassifierSettings.defaults()))
		.build();

	@Test
	void successfulCallsOfEveryKindClassifyNothing() {
		BlockingTargetCall<String> blocking = (attempt) -> "ok";
		TargetCall<String> reactive = (attempt) -> Mono.just("ok");
		StreamingTargetCall<String> streaming = (attempt) -> Flux.just("o", "k");
		for (int i = 0; i < 100; i++) {
			assertThat(this.resilience.call("chat", blocking)).isEqualTo("ok");
			assertThat(this.resilience.callOnTarget("primary", CallOptions.NONE, blocking)).isEqualTo("ok");
			assertThat(this.resilience.execute("chat", reactive).block()).isEqualTo("ok");
			assertThat(this.resilience.stream("chat", streaming).collectList().block()).containsExactly("o", "k");
		}
		assertThat(this.classified).hasValue(0);
	}

	@Test
	void aFailedCallIsClassified() {
		// The counting classifier is the one the engine asks. A rejected key is not
		// retried, so the call waits for no backoff and is classified once.
		ProviderResponse rejected = ProviderResponse.of(401, Map.of(),
				"{\"error\":{\"message\":\"Incorrect API key provided\",\"type\":\"invalid_request_error\","
						+ "\"code\":\"invalid_api_key\"}}");
		BlockingTargetCall<String> failing = (attempt) -> {
			throw new ProviderAnswerException(rejected);
		};
		assertThatExceptionOfType(RuntimeException.class).isThrownBy(() -> this.resilience.call("chat", failing));
		assertThat(this.classified).hasValue(1);
	}

	/** The built-in OpenAI classifier, counting what it is asked to classify. */
	private final class CountingClassifier implements ProviderErrorClassifier {

		private final ProviderErrorClassifier delegate = BuiltInClassifiers.forProvider("openai");

		@Override
		public String provider() {
			return "openai";
		}

		@Override
		public Verdict classify(ProviderResponse response) {
			SuccessPathClassificationTests.this.classified.incrementAndGet();
			return this.delegate.classify(response);
		}

	}

}
