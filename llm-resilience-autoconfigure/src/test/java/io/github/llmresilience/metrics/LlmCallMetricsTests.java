package io.github.llmresilience.metrics;

import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.execute.CallObserver.RetryResult;
import io.github.llmresilience.execute.LlmUnavailableException;
import io.github.llmresilience.target.Secret;
import io.github.llmresilience.target.Target;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LlmCallMetricsTests {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final LlmCallMetrics metrics = new LlmCallMetrics(this.registry);

	private final Target primary = new Target("primary", "openai", "prod", "gpt-4o", "us",
			URI.create("https://api.openai.com"), Secret.of("sk-test-NEVER-A-TAG"));

	@Test
	void anAttemptIsTimedWithTheTargetsTagsAndItsOutcome() {
		this.metrics.onAttempt("chat", this.primary, Verdict.of(Outcome.CONTENT_FILTER), 2_000_000);
		this.metrics.onAttempt("chat", this.primary, Verdict.of(Outcome.CONTENT_FILTER), 4_000_000);

		assertThat(this.registry.get("llm.resilience.calls")
			.tags("chain", "chat", "target", "primary", "provider", "openai", "model", "gpt-4o", "region", "us",
					"outcome", "content-filter")
			.timer()
			.count()).isEqualTo(2);
	}

	@Test
	void retryDecisionsBackoffsFallbacksAndExhaustedChainsAreCounted() {
		this.metrics.onRetry("chat", this.primary, RetryResult.ATTEMPTED);
		this.metrics.onRetry("chat", this.primary, RetryResult.BUDGET_EXHAUSTED);
		this.metrics.onBackoff("chat", this.primary, 500_000_000);
		this.metrics.onServed("chat", this.primary, 0, 1);
		this.metrics.onServed("chat", this.primary, 1, 1);
		this.metrics.onUnavailable("chat",
				new LlmUnavailableException("chat", List.of(), true, Instant.EPOCH, null, null), 1);

		assertThat(this.registry.get("llm.resilience.retries").tag("result", "attempted").counter().count())
			.isEqualTo(1);
		assertThat(this.registry.get("llm.resilience.retries").tag("result", "budget-exhausted").counter().count())
			.isEqualTo(1);
		assertThat(this.registry.get("llm.resilience.backoff").timer().totalTime(TimeUnit.MILLISECONDS)).isEqualTo(500);
		assertThat(this.registry.get("llm.resilience.fallbacks").counter().count()).isEqualTo(1);
		assertThat(this.registry.get("llm.resilience.unavailable")
			.tags("chain", "chat", "throttled", "true")
			.counter()
			.count()).isEqualTo(1);
	}

	@Test
	void noTagCarriesTheKey() {
		this.metrics.onAttempt("chat", this.primary, Verdict.of(Outcome.CREDENTIAL, null, "invalid_api_key"), 1);
		for (Meter meter : this.registry.getMeters()) {
			assertThat(meter.getId().toString()).doesNotContain("NEVER-A-TAG");
		}
	}

}
