package io.github.llmresilience.autoconfigure;

import io.github.llmresilience.execute.CallTracing;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.observation.LlmObservations;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Traces are auto-configured only when the application has an {@link ObservationRegistry}
 * bean, and a tracing bean of the application's own wins.
 */
class LlmResilienceObservationAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LlmResilienceObservationAutoConfiguration.class,
				LlmResilienceAutoConfiguration.class))
		.withPropertyValues("llm.resilience.targets.primary.provider=openai",
				"llm.resilience.targets.primary.model=gpt-4o", "llm.resilience.chains.chat=primary");

	@Test
	void withAnObservationRegistryBeanCallsAreObserved() {
		this.runner.withBean(ObservationRegistry.class, TestObservationRegistry::create).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).getBean(CallTracing.class).isInstanceOf(LlmObservations.class);
			assertThat(context).hasSingleBean(LlmResilience.class);
		});
	}

	@Test
	void withoutAnObservationRegistryBeanThereIsNoTracing() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(CallTracing.class);
			assertThat(context).hasSingleBean(LlmResilience.class);
		});
	}

	@Test
	void withoutMicrometersObservationApiThereIsNoTracing() {
		this.runner.withClassLoader(new FilteredClassLoader(ObservationRegistry.class)).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(CallTracing.class);
		});
	}

	@Test
	void theApplicationsOwnTracingWins() {
		CallTracing own = (chain, reactor) -> null;
		this.runner.withBean(ObservationRegistry.class, TestObservationRegistry::create)
			.withBean(CallTracing.class, () -> own)
			.run((context) -> assertThat(context).getBean(CallTracing.class).isSameAs(own));
	}

}
