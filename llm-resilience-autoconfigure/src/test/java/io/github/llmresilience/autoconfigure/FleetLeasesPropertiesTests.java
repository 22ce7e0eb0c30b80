package io.github.llmresilience.autoconfigure;

import java.time.Duration;
import java.util.UUID;

import io.github.llmresilience.data.redis.RedisLeaseStore;
import io.github.llmresilience.pool.LeaseSettings;
import io.github.llmresilience.pool.LeaseStore;
import io.github.llmresilience.test.LocalRedis;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code llm.resilience.pools.fleet-leases.*} in a real Spring context: off by default,
 * one change each, the lease store on Redis when enabled in fleet mode, and bad values
 * failing at startup naming the property and its range.
 */
class FleetLeasesPropertiesTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(DataRedisAutoConfiguration.class, DataRedisReactiveAutoConfiguration.class,
						LlmResilienceFleetAutoConfiguration.class, LlmResilienceAutoConfiguration.class))
		.withPropertyValues("llm.resilience.targets.primary.provider=openai",
				"llm.resilience.targets.primary.account=acct", "llm.resilience.targets.primary.model=gpt-4o",
				"llm.resilience.chains.chat=primary");

	@Test
	void leasesAreOffByDefaultWithAPeriodOfFiveSeconds() {
		this.runner.run((context) -> {
			assertThat(context.getBean(PropertiesSettings.class).leases()).isEqualTo(LeaseSettings.defaults());
			assertThat(context).doesNotHaveBean(LeaseStore.class);
		});
	}

	@Test
	void thePeriodAndTheExchangeTimeoutMayBeSet() {
		this.runner
			.withPropertyValues("llm.resilience.pools.fleet-leases.period=2s",
					"llm.resilience.pools.fleet-leases.exchange-timeout=300ms")
			.run((context) -> assertThat(context.getBean(PropertiesSettings.class).leases())
				.isEqualTo(new LeaseSettings(false, Duration.ofSeconds(2), Duration.ofMillis(300))));
	}

	@Test
	void enabledInFleetModeTheLeasesLiveInRedisUnderTheFleetsNamespace() {
		String name = "leases-" + UUID.randomUUID().toString().substring(0, 8);
		this.runner
			.withPropertyValues("llm.resilience.fleet.enabled=true", "llm.resilience.fleet.namespace=" + name,
					"llm.resilience.pools.enabled=true", "llm.resilience.pools.fleet-leases.enabled=true",
					"spring.data.redis.url=" + LocalRedis.ciRedis())
			.run((context) -> {
				assertThat(context).hasSingleBean(RedisLeaseStore.class);
				assertThat(context.getBean(RedisLeaseStore.class).key("acct/gpt-4o"))
					.isEqualTo("llm-resilience:{" + name + "}:lease:acct/gpt-4o");
				assertThat(context.getBean(PropertiesSettings.class).leases().enabled()).isTrue();
			});
	}

	@Test
	void aPeriodOutOfRangeFailsStartupNamingIt() {
		failsNaming("llm.resilience.pools.fleet-leases.period=50ms", "llm.resilience.pools.fleet-leases.period",
				"must be between 100ms and 60s");
	}

	@Test
	void anExchangeTimeoutNotBelowThePeriodFailsStartupNamingBoth() {
		failsNaming("llm.resilience.pools.fleet-leases.exchange-timeout=5s",
				"llm.resilience.pools.fleet-leases.exchange-timeout",
				"must be less than llm.resilience.pools.fleet-leases.period");
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
