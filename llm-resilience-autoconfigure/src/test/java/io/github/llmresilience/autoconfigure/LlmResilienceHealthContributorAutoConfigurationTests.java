package io.github.llmresilience.autoconfigure;

import io.github.llmresilience.actuate.ChainDescriptor;
import io.github.llmresilience.actuate.LlmResilienceHealthIndicator;
import io.github.llmresilience.execute.LlmResilience;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

class LlmResilienceHealthContributorAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LlmResilienceAutoConfiguration.class,
				LlmResilienceHealthContributorAutoConfiguration.class))
		.withPropertyValues("llm.resilience.targets.primary.provider=openai",
				"llm.resilience.targets.primary.model=gpt-4o", "llm.resilience.targets.secondary.provider=anthropic",
				"llm.resilience.targets.secondary.model=claude-sonnet", "llm.resilience.chains.chat[0]=primary",
				"llm.resilience.chains.chat[1]=secondary");

	@Test
	void whenActuatorIsPresentProvidesTheContributor() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(LlmResilienceHealthIndicator.class);
			assertThat(context).hasBean("llmResilienceHealthIndicator");
		});
	}

	@Test
	void whenActuatorIsAbsentProvidesNoContributor() {
		this.runner.withClassLoader(new FilteredClassLoader("org.springframework.boot.health")).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(LlmResilience.class);
			assertThat(context).doesNotHaveBean("llmResilienceHealthIndicator");
		});
	}

	@Test
	void whenOnlyTheHealthModuleIsPresentProvidesNoContributor() {
		this.runner.withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate")).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean("llmResilienceHealthIndicator");
		});
	}

	@Test
	void whenHealthDisabledProvidesNoContributor() {
		this.runner.withPropertyValues("management.health.llmresilience.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LlmResilienceHealthIndicator.class));
	}

	@Test
	void whenHealthDefaultsAreDisabledProvidesNoContributor() {
		this.runner.withPropertyValues("management.health.defaults.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LlmResilienceHealthIndicator.class));
	}

	@Test
	void whenLlmResilienceIsDisabledProvidesNoContributor() {
		this.runner.withPropertyValues("llm.resilience.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LlmResilienceHealthIndicator.class));
	}

	@Test
	void whenTheUserDefinesTheContributorTheirsWins() {
		this.runner.withUserConfiguration(OwnHealthIndicatorConfiguration.class).run((context) -> {
			assertThat(context).doesNotHaveBean(LlmResilienceHealthIndicator.class);
			assertThat(context.getBean("llmResilienceHealthIndicator", HealthIndicator.class).health().getStatus())
				.isEqualTo(Status.OUT_OF_SERVICE);
		});
	}

	@Test
	void whenEveryChainHasAUsableTargetTheStatusIsUp() {
		this.runner.run((context) -> {
			Health health = context.getBean(LlmResilienceHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsOnlyKeys("chains", "targets");
		});
	}

	@Test
	void whenOneTargetOfAChainIsOutTheStatusIsStillUp() {
		this.runner.run((context) -> {
			LlmResilience resilience = context.getBean(LlmResilience.class);
			resilience.operator().forceOpen("primary");
			assertThat(context.getBean(LlmResilienceHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
		});
	}

	@Test
	void whenAChainHasNoUsableTargetTheStatusIsDegraded() {
		this.runner.run((context) -> {
			forceOpenEveryBreaker(context.getBean(LlmResilience.class));
			Health health = context.getBean(LlmResilienceHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(LlmResilienceHealthIndicator.DEGRADED);
			assertThat(health.getStatus().getCode()).isEqualTo("DEGRADED");
			assertThat(health.getDetails().get("chains"))
				.asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.map(String.class, ChainDescriptor.class))
				.hasEntrySatisfying("chat", (chat) -> assertThat(chat.usable()).isFalse());
		});
	}

	@Test
	void whenDownWhenUnavailableIsSetTheStatusIsDown() {
		this.runner.withPropertyValues("llm.resilience.health.down-when-unavailable=true").run((context) -> {
			forceOpenEveryBreaker(context.getBean(LlmResilience.class));
			assertThat(context.getBean(LlmResilienceHealthIndicator.class).health().getStatus()).isEqualTo(Status.DOWN);
		});
	}

	private static void forceOpenEveryBreaker(LlmResilience resilience) {
		resilience.state().targets().keySet().forEach(resilience.operator()::forceOpen);
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnHealthIndicatorConfiguration {

		@Bean
		HealthIndicator llmResilienceHealthIndicator() {
			return () -> Health.outOfService().build();
		}

	}

}
