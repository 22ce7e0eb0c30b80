package io.github.llmresilience.autoconfigure;

import io.github.llmresilience.execute.CallOptions;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.metrics.LlmCallMetrics;
import io.github.llmresilience.metrics.LlmResilienceStateMetrics;
import io.github.llmresilience.metrics.StateChangeMetrics;
import io.github.llmresilience.metrics.UnclassifiedMetrics;
import io.github.resilience4j.micrometer.tagged.TaggedCircuitBreakerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

class LlmResilienceMetricsAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LlmResilienceAutoConfiguration.class,
				LlmResilienceMetricsAutoConfiguration.class, MetricsAutoConfiguration.class,
				SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class))
		.withPropertyValues("llm.resilience.targets.primary.provider=openai",
				"llm.resilience.targets.primary.model=gpt-4o", "llm.resilience.chains.chat[0]=primary");

	@Test
	void whenAMeterRegistryExistsBindsEveryMeter() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(LlmCallMetrics.class)
				.hasSingleBean(StateChangeMetrics.class)
				.hasSingleBean(UnclassifiedMetrics.class)
				.hasSingleBean(LlmResilienceStateMetrics.class)
				.hasBean("llmResilienceCircuitBreakerMetrics");
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get("llm.resilience.gated.scopes").gauge().value()).isZero();
			assertThat(registry.get("llm.resilience.parked.accounts").gauge().value()).isZero();
			assertThat(registry.get("llm.resilience.locked.accounts").gauge().value()).isZero();
			assertThat(registry.get("llm.resilience.breaker.failure.rate.threshold")
				.tags("name", "openai/gpt-4o/global")
				.gauge()
				.value()).isEqualTo(50);
			assertThat(registry.get("llm.resilience.breaker.slow.call.rate.threshold")
				.tags("name", "openai/gpt-4o/global")
				.gauge()
				.value()).isEqualTo(50);
			assertThat(registry.get("llm.resilience.breaker.state")
				.tags("name", "openai/gpt-4o/global", "state", "closed")
				.gauge()
				.value()).isEqualTo(1);
		});
	}

	@Test
	void aStateChangeIsCountedOnceByKindAndSubject() {
		this.runner.run((context) -> {
			context.getBean(LlmResilience.class).operator().forceOpen("primary");
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get("llm.resilience.state.transitions")
				.tags("kind", "breaker-forced-open", "subject", "openai/gpt-4o/global")
				.counter()
				.count()).isEqualTo(1);
			assertThat(registry.get("llm.resilience.breaker.state")
				.tags("name", "openai/gpt-4o/global", "state", "forced_open")
				.gauge()
				.value()).isEqualTo(1);
		});
	}

	@Test
	void whenMicrometerIsAbsentProvidesNoMeters() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LlmResilienceAutoConfiguration.class,
					LlmResilienceMetricsAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader("io.micrometer.core", "io.github.resilience4j.micrometer"))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).hasSingleBean(LlmResilience.class);
				assertThat(context).doesNotHaveBean("llmCallMetrics");
			});
	}

	@Test
	void whenThereIsNoMeterRegistryProvidesNoMeters() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LlmResilienceAutoConfiguration.class,
					LlmResilienceMetricsAutoConfiguration.class))
			.run((context) -> {
				assertThat(context).hasSingleBean(LlmResilience.class);
				assertThat(context).doesNotHaveBean(LlmCallMetrics.class);
			});
	}

	@Test
	void whenResilience4jMicrometerIsAbsentTheOtherMetersRemain() {
		this.runner.withClassLoader(new FilteredClassLoader(TaggedCircuitBreakerMetrics.class)).run((context) -> {
			assertThat(context).hasSingleBean(LlmCallMetrics.class);
			assertThat(context).doesNotHaveBean("llmResilienceCircuitBreakerMetrics");
		});
	}

	@Test
	void whenLlmResilienceIsDisabledProvidesNoMeters() {
		this.runner.withPropertyValues("llm.resilience.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LlmCallMetrics.class));
	}

	@Test
	void whenTheUserDefinesTheCallMetricsTheirsWins() {
		this.runner.withUserConfiguration(OwnCallMetricsConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(LlmCallMetrics.class);
			assertThat(context.getBean(LlmCallMetrics.class)).isSameAs(context.getBean("myCallMetrics"));
		});
	}

	@Test
	void anApplicationsOwnCallObserverDoesNotTurnTheMetricsOff() {
		this.runner.withUserConfiguration(OwnCallObserverConfiguration.class)
			.run((context) -> assertThat(context).hasSingleBean(LlmCallMetrics.class));
	}

	@Test
	void besideAnApplicationsOwnCallObserverADegradedCallIsCountedWithItsBackoffShare() {
		this.runner.withUserConfiguration(OwnCallObserverConfiguration.class).run((context) -> {
			LlmResilience resilience = context.getBean(LlmResilience.class);
			resilience.operator().forceOpen("primary");

			String answer = resilience.call("chat", CallOptions.NONE, (attempt) -> "never asked",
					(degradation) -> "cached");

			assertThat(answer).isEqualTo("cached");
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get("llm.resilience.degraded")
				.tags("chain", "chat", "result", "answered")
				.counter()
				.count()).isEqualTo(1);
			assertThat(registry.get("llm.resilience.calls.backoff.share").tag("chain", "chat").summary().count())
				.isEqualTo(1);
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnCallMetricsConfiguration {

		@Bean
		LlmCallMetrics myCallMetrics(MeterRegistry registry) {
			return new LlmCallMetrics(registry);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnCallObserverConfiguration {

		@Bean
		io.github.llmresilience.execute.CallObserver auditObserver() {
			return new io.github.llmresilience.execute.CallObserver() {
			};
		}

	}

}
