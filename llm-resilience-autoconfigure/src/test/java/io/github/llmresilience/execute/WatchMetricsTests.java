package io.github.llmresilience.execute;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.llmresilience.metrics.LlmCallMetrics;
import io.github.llmresilience.test.FakeProvider.Reply;
import io.github.llmresilience.web.LlmResilienceExchangeFilterFunction;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The watch list's meters over real HTTP on virtual time: the provider's reported
 * processing time beside the attempt timer, the backoff share of each call, and degraded
 * answers.
 */
class WatchMetricsTests {

	private final EngineHarness h = new EngineHarness();

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	@AfterEach
	void close() {
		this.h.close();
	}

	private String callThroughTheWebClientFilter() {
		WebClient client = WebClient.builder()
			.baseUrl(this.h.provider.baseUrl("primary"))
			.filter(new LlmResilienceExchangeFilterFunction(this.h.resilience, "primary"))
			.build();
		return client.post()
			.uri("/v1/chat/completions")
			.bodyValue("{}")
			.retrieve()
			.bodyToMono(String.class)
			.block(Duration.ofSeconds(10));
	}

	@Test
	void theProcessingTimeOpenAiReportsIsTimedBesideTheAttempt() {
		this.h.provider.always("primary",
				Reply.json(200, Map.of("openai-processing-ms", "321"), FakeProviderBodies.OK));
		this.h.build((builder) -> builder.observer(new LlmCallMetrics(this.registry)), "primary");

		assertThat(callThroughTheWebClientFilter()).isEqualTo(FakeProviderBodies.OK);

		assertThat(this.registry.get("llm.resilience.provider.processing")
			.tags("target", "primary", "provider", "openai")
			.timer()
			.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(321);
		assertThat(this.registry.get("llm.resilience.calls")
			.tags("target", "primary", "outcome", "success")
			.timer()
			.count()).isEqualTo(1);
	}

	@Test
	void aGarbageProcessingTimeIsIgnoredAndTheCallAnswers() {
		this.h.provider.always("primary",
				Reply.json(200, Map.of("openai-processing-ms", "-12e9"), FakeProviderBodies.OK));
		this.h.build((builder) -> builder.observer(new LlmCallMetrics(this.registry)), "primary");

		assertThat(callThroughTheWebClientFilter()).isEqualTo(FakeProviderBodies.OK);

		assertThat(this.registry.find("llm.resilience.provider.processing").timer()).isNull();
	}

	@Test
	void aCallThatWaitedOnItsRetryRecordsTheBackoffShareOfItsTime() {
		this.h.provider.script("primary",
				(n) -> (n == 1) ? Reply.json(503, Map.of("retry-after", "3"), FakeProviderBodies.SERVER_ERROR)
						: Reply.ok(FakeProviderBodies.OK));
		this.h.build((builder) -> builder.observer(new LlmCallMetrics(this.registry)), "primary");

		assertThat(this.h.chat()).isEqualTo(FakeProviderBodies.OK);

		// On virtual time the requests take none: the whole call was the 3 s wait.
		DistributionSummary share = this.registry.get("llm.resilience.calls.backoff.share")
			.tag("chain", "chat")
			.summary();
		assertThat(share.count()).isEqualTo(1);
		assertThat(share.totalAmount()).isEqualTo(1.0);
		assertThat(this.h.time.elapsed()).isEqualTo(Duration.ofSeconds(3));
	}

	@Test
	void aDegradedAnswerIsCountedBesideTheUnavailableCall() {
		this.h.provider.always("primary", Reply.json(503, FakeProviderBodies.SERVER_ERROR));
		this.h.build((builder) -> builder.observer(new LlmCallMetrics(this.registry)), "primary");

		assertThat(this.h.time.await(
				this.h.resilience.execute("chat", CallOptions.NONE, this.h::webClientCall, (degradation) -> "cached"),
				this.h.inFlight::get))
			.isEqualTo("cached");

		assertThat(this.registry.get("llm.resilience.unavailable").tag("chain", "chat").counter().count()).isEqualTo(1);
		assertThat(this.registry.get("llm.resilience.degraded")
			.tags("chain", "chat", "result", "answered")
			.counter()
			.count()).isEqualTo(1);
		assertThat(this.registry.get("llm.resilience.calls.backoff.share").summary().count()).isEqualTo(1);
	}

}
