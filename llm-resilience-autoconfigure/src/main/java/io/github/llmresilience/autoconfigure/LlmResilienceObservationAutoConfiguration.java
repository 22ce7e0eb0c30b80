package io.github.llmresilience.autoconfigure;

import io.github.llmresilience.execute.CallTracing;
import io.github.llmresilience.observation.LlmObservations;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Traces of every call through a chain, as Micrometer Observations
 * ({@code llm.resilience.call}, {@code llm.resilience.attempt}), when the application has
 * an {@link ObservationRegistry} bean (Boot's, with Micrometer Tracing, makes them
 * spans). Without one, the engine's calls have no trace and pay nothing for it.
 */
@AutoConfiguration(before = LlmResilienceAutoConfiguration.class,
		afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean(ObservationRegistry.class)
public final class LlmResilienceObservationAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	CallTracing llmResilienceCallTracing(ObservationRegistry registry) {
		return new LlmObservations(registry);
	}

}
