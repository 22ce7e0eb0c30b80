package io.github.llmresilience.autoconfigure;

import java.time.Duration;

import io.github.llmresilience.hedge.HedgingSettings;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code llm.resilience.hedging.*}: off by default, bound from yml, and a bad value stops
 * startup naming its property and the allowed range.
 */
class HedgingPropertiesTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LlmResilienceAutoConfiguration.class))
		.withPropertyValues("llm.resilience.targets.primary.provider=openai",
				"llm.resilience.targets.primary.model=gpt-4o", "llm.resilience.chains.chat[0]=primary");

	@Test
	void hedgingIsOffByDefaultWithItsDocumentedBudget() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			HedgingSettings hedging = context.getBean(PropertiesSettings.class).hedging();
			assertThat(hedging).isEqualTo(HedgingSettings.defaults());
			assertThat(hedging.enabled()).isFalse();
			assertThat(hedging.calls()).isFalse();
			assertThat(hedging.delay()).isNull();
			assertThat(hedging.budget()).isEqualTo(0.05);
			assertThat(hedging.window()).isEqualTo(Duration.ofSeconds(10));
			assertThat(hedging.minimum()).isEqualTo(1);
		});
	}

	@Test
	void hedgingBindsFromProperties() {
		this.runner
			.withPropertyValues("llm.resilience.hedging.enabled=true", "llm.resilience.hedging.calls=true",
					"llm.resilience.hedging.delay=750ms", "llm.resilience.hedging.budget=0.02",
					"llm.resilience.hedging.window=30s", "llm.resilience.hedging.minimum=0")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(PropertiesSettings.class).hedging()).isEqualTo(
						new HedgingSettings(true, true, Duration.ofMillis(750), 0.02, Duration.ofSeconds(30), 0));
			});
	}

	@Test
	void aBudgetOutOfItsRangeStopsStartupNamingTheProperty() {
		this.runner.withPropertyValues("llm.resilience.hedging.enabled=true", "llm.resilience.hedging.budget=1.5")
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new InvalidLlmResiliencePropertiesFailureAnalyzer()
					.analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).contains("Property: llm.resilience.hedging.budget")
					.contains("1.5")
					.contains("must be above 0 and at most 1");
			});
	}

	@Test
	void aZeroDelayOrWindowStopsStartupNamingTheProperty() {
		this.runner.withPropertyValues("llm.resilience.hedging.delay=0s").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(new InvalidLlmResiliencePropertiesFailureAnalyzer().analyze(context.getStartupFailure())
				.getDescription()).contains("Property: llm.resilience.hedging.delay")
				.contains("must be a positive duration");
		});
		this.runner.withPropertyValues("llm.resilience.hedging.window=0s").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(new InvalidLlmResiliencePropertiesFailureAnalyzer().analyze(context.getStartupFailure())
				.getDescription()).contains("Property: llm.resilience.hedging.window");
		});
	}

}
