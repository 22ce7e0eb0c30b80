package io.github.llmresilience.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.metrics.LlmCallMetrics;
import io.github.llmresilience.metrics.LlmResilienceStateMetrics;
import io.github.llmresilience.metrics.OverloadMetrics;
import io.github.llmresilience.metrics.SpendMetrics;
import io.github.llmresilience.metrics.SpendStateMetrics;
import io.github.llmresilience.metrics.StateChangeMetrics;
import io.github.llmresilience.metrics.UnclassifiedMetrics;
import io.github.llmresilience.spend.Price;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.micrometer.tagged.CircuitBreakerMetricNames;
import io.github.resilience4j.micrometer.tagged.TaggedCircuitBreakerMetrics;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Auto-configuration of llm-resilience's Micrometer meters, all named
 * {@code llm.resilience.*}, when a {@link MeterRegistry} bean exists.
 */
@AutoConfiguration(after = LlmResilienceAutoConfiguration.class,
		afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ LlmResilience.class, MeterRegistry.class })
public final class LlmResilienceMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LlmCallMetrics llmCallMetrics(MeterRegistry registry) {
		return new LlmCallMetrics(registry);
	}

	@Bean
	@ConditionalOnMissingBean
	SpendMetrics llmResilienceSpendMetrics(MeterRegistry registry, PropertiesSettings settings) {
		return new SpendMetrics(registry, settings.prices());
	}

	@Bean
	@ConditionalOnMissingBean
	SpendStateMetrics llmResilienceSpendStateMetrics(LlmResilience resilience) {
		return new SpendStateMetrics(resilience);
	}

	@Bean
	@ConditionalOnMissingBean
	StateChangeMetrics llmResilienceStateChangeMetrics(MeterRegistry registry) {
		return new StateChangeMetrics(registry);
	}

	@Bean
	@ConditionalOnMissingBean
	UnclassifiedMetrics llmResilienceUnclassifiedMetrics(MeterRegistry registry) {
		return new UnclassifiedMetrics(registry);
	}

	@Bean
	@ConditionalOnMissingBean
	LlmResilienceStateMetrics llmResilienceStateMetrics(LlmResilience resilience) {
		return new LlmResilienceStateMetrics(resilience);
	}

	@Bean
	@ConditionalOnMissingBean
	OverloadMetrics llmResilienceOverloadMetrics(LlmResilience resilience) {
		return new OverloadMetrics(resilience);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(TaggedCircuitBreakerMetrics.class)
	static final class CircuitBreakerMetricsConfiguration {

		/**
		 * Resilience4j's own breaker meters, renamed so they cannot mix with the
		 * application's breakers.
		 */
		static final CircuitBreakerMetricNames NAMES = CircuitBreakerMetricNames.custom()
			.callsMetricName("llm.resilience.breaker.calls")
			.notPermittedCallsMetricName("llm.resilience.breaker.not.permitted.calls")
			.stateMetricName("llm.resilience.breaker.state")
			.bufferedCallsMetricName("llm.resilience.breaker.buffered.calls")
			.slowCallsMetricName("llm.resilience.breaker.slow.calls")
			.failureRateMetricName("llm.resilience.breaker.failure.rate")
			.slowCallRateMetricName("llm.resilience.breaker.slow.call.rate")
			.build();

		// Matched by name: the application may have a TaggedCircuitBreakerMetrics of its
		// own.
		@Bean
		@ConditionalOnMissingBean(name = "llmResilienceCircuitBreakerMetrics")
		TaggedCircuitBreakerMetrics llmResilienceCircuitBreakerMetrics(
				@Qualifier("llmResilienceCircuitBreakerRegistry") CircuitBreakerRegistry circuitBreakers) {
			return TaggedCircuitBreakerMetrics.ofCircuitBreakerRegistry(NAMES, circuitBreakers);
		}

	}

}
