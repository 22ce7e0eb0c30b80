package io.github.llmresilience.autoconfigure;

import java.time.Duration;
import java.util.Map;

import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.metrics.OverloadMetrics;
import io.github.llmresilience.overload.ClientThrottlingSettings;
import io.github.llmresilience.overload.ConcurrencySettings;
import io.github.llmresilience.overload.ConcurrencySettings.Algorithm;
import io.github.llmresilience.overload.OverloadState;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code llm.resilience.concurrency.*} and {@code llm.resilience.client-throttling.*} in
 * a real Spring context: concurrency limits off and client-side throttling on by default,
 * one change each, their state per target and their gauges, and bad values failing at
 * startup naming the property and its range.
 */
class OverloadControlPropertiesTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LlmResilienceAutoConfiguration.class,
				LlmResilienceMetricsAutoConfiguration.class))
		.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
		.withPropertyValues("llm.resilience.targets.primary.provider=openai",
				"llm.resilience.targets.primary.account=acct", "llm.resilience.targets.primary.model=gpt-4o",
				"llm.resilience.targets.primary.region=us", "llm.resilience.chains.chat=primary");

	@Test
	void concurrencyLimitsAreOffAndClientThrottlingIsOnByDefault() {
		this.runner.run((context) -> {
			PropertiesSettings settings = context.getBean(PropertiesSettings.class);
			assertThat(settings.concurrency()).isEqualTo(ConcurrencySettings.defaults());
			assertThat(settings.clientThrottling()).isEqualTo(ClientThrottlingSettings.defaults());
			OverloadState state = context.getBean(LlmResilience.class).state().targets().get("primary").overload();
			assertThat(state.limit()).isEqualTo(-1);
			assertThat(state.refusalProbability()).isZero();
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			context.getBean(OverloadMetrics.class).bindTo(meters);
			assertThat(meters.find(OverloadMetrics.THROTTLING_PROBABILITY).tag("name", "openai/acct").gauge().value())
				.isZero();
			assertThat(meters.find(OverloadMetrics.CONCURRENCY_LIMIT).gauge()).isNull();
		});
	}

	@Test
	void concurrencyLimitsMayBeTurnedOnWithTheirAlgorithmAndBounds() {
		this.runner
			.withPropertyValues("llm.resilience.concurrency.enabled=true", "llm.resilience.concurrency.algorithm=vegas",
					"llm.resilience.concurrency.initial-limit=8", "llm.resilience.concurrency.max-limit=40",
					"llm.resilience.concurrency.backoff-ratio=0.7")
			.run((context) -> {
				assertThat(context.getBean(PropertiesSettings.class).concurrency())
					.isEqualTo(new ConcurrencySettings(true, Algorithm.VEGAS, 8, 1, 40, 0.7));
				assertThat(context.getBean(LlmResilience.class).state().targets().get("primary").overload().limit())
					.isEqualTo(8);
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				context.getBean(OverloadMetrics.class).bindTo(meters);
				assertThat(
						meters.find(OverloadMetrics.CONCURRENCY_LIMIT).tag("name", "openai/gpt-4o/us").gauge().value())
					.isEqualTo(8);
			});
	}

	@Test
	void clientThrottlingMayBeTunedPerPool() {
		this.runner
			.withPropertyValues("llm.resilience.client-throttling.window=30s",
					"llm.resilience.client-throttling.minimum-requests=50",
					"llm.resilience.client-throttling.multipliers.background=1.5")
			.run((context) -> assertThat(context.getBean(PropertiesSettings.class).clientThrottling())
				.isEqualTo(new ClientThrottlingSettings(true, Duration.ofSeconds(30), 50, 2.0,
						Map.of("interactive", 3.0, "background", 1.5))));
	}

	@Test
	void clientThrottlingMayBeTurnedOff() {
		this.runner.withPropertyValues("llm.resilience.client-throttling.enabled=false")
			.run((context) -> assertThat(
					context.getBean(LlmResilience.class).state().targets().get("primary").overload())
				.isNull());
	}

	@Test
	void aMinimumLimitOutOfRangeFailsStartupNamingIt() {
		failsNaming("llm.resilience.concurrency.min-limit=0", "llm.resilience.concurrency.min-limit",
				"must be between 1 and 10000");
	}

	@Test
	void withoutAnInitialLimitTheLimitStartsAtTheMaximum() {
		this.runner
			.withPropertyValues("llm.resilience.concurrency.enabled=true", "llm.resilience.concurrency.max-limit=64")
			.run((context) -> assertThat(context.getBean(PropertiesSettings.class).concurrency().initialLimit())
				.isEqualTo(64));
	}

	@Test
	void anInitialLimitAboveTheMaximumFailsStartupNamingIt() {
		failsNaming("llm.resilience.concurrency.initial-limit=500", "llm.resilience.concurrency.initial-limit",
				"must not exceed llm.resilience.concurrency.max-limit (200)");
	}

	@Test
	void aBackoffRatioOutOfRangeFailsStartupNamingIt() {
		failsNaming("llm.resilience.concurrency.backoff-ratio=0.3", "llm.resilience.concurrency.backoff-ratio",
				"must be between 0.5 and 0.99");
	}

	@Test
	void aMultiplierBelowOneFailsStartupNamingIt() {
		failsNaming("llm.resilience.client-throttling.multipliers.background=0.5",
				"llm.resilience.client-throttling.multipliers.background", "must be between 1 and 100");
	}

	@Test
	void aWindowOutOfRangeFailsStartupNamingIt() {
		failsNaming("llm.resilience.client-throttling.window=2h", "llm.resilience.client-throttling.window",
				"must be between 1s and 1h");
	}

	private void failsNaming(String setting, String property, String allowed) {
		this.runner.withPropertyValues(setting).run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new InvalidLlmResiliencePropertiesFailureAnalyzer()
				.analyze(context.getStartupFailure());
			assertThat(analysis).as("a failure analysis of %s", context.getStartupFailure()).isNotNull();
			assertThat(analysis.getDescription()).contains("Property: " + property).contains(allowed);
		});
	}

}
