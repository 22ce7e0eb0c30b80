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
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
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
	void degradedAnswersAreCountedByChainAndWhetherTheFallbackAnswered() {
		LlmUnavailableException unavailable = new LlmUnavailableException("chat", List.of(), false, Instant.EPOCH, null,
				null);
		this.metrics.onDegraded("chat", unavailable, null, 1);
		this.metrics.onDegraded("chat", unavailable, null, 1);
		this.metrics.onDegraded("chat", unavailable, new IllegalStateException("empty cache"), 1);

		assertThat(this.registry.get("llm.resilience.degraded")
			.tags("chain", "chat", "result", "answered")
			.counter()
			.count()).isEqualTo(2);
		assertThat(this.registry.get("llm.resilience.degraded")
			.tags("chain", "chat", "result", "failed")
			.counter()
			.count()).isEqualTo(1);
	}

	@Test
	void theBackoffShareOfEachCallIsItsWaitOverItsWholeTimeBetweenZeroAndOne() {
		this.metrics.onCallEnded("chat", 2_000_000_000L, 500_000_000L);
		this.metrics.onCallEnded("chat", 1_000_000_000L, 0);
		this.metrics.onCallEnded("chat", 0, 0);

		DistributionSummary share = this.registry.get("llm.resilience.calls.backoff.share")
			.tag("chain", "chat")
			.summary();
		assertThat(share.count()).isEqualTo(3);
		assertThat(share.totalAmount()).isEqualTo(0.25);
		assertThat(share.max()).isEqualTo(0.25);
	}

	@Test
	void theProvidersReportedProcessingTimeIsTimedBesideTheAttemptsWithTheTargetsTags() {
		this.metrics.processing("chat", this.primary, "1200");
		this.metrics.processing("chat", this.primary, " 300.5 ");

		Timer processing = this.registry.get("llm.resilience.provider.processing")
			.tags("chain", "chat", "target", "primary", "provider", "openai", "model", "gpt-4o", "region", "us")
			.timer();
		assertThat(processing.count()).isEqualTo(2);
		assertThat(processing.totalTime(TimeUnit.MICROSECONDS)).isEqualTo(1_500_500);
	}

	@Test
	void anAbsentOrGarbageProcessingTimeIsIgnoredNeverThrown() {
		for (String garbage : new String[] { null, "", " ", "-5", "+5", "1e3", "NaN", "Infinity", "0x10", "12ms",
				"1.2.3", ".5", "5.", "99999999999", "1".repeat(400) }) {
			this.metrics.processing("chat", this.primary, garbage);
		}
		assertThat(this.registry.find("llm.resilience.provider.processing").timer()).isNull();
	}

	@Test
	void noTagCarriesTheKey() {
		this.metrics.onAttempt("chat", this.primary, Verdict.of(Outcome.CREDENTIAL, null, "invalid_api_key"), 1);
		for (Meter meter : this.registry.getMeters()) {
			assertThat(meter.getId().toString()).doesNotContain("NEVER-A-TAG");
		}
	}

}
