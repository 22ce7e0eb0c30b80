package io.github.llmresilience.autoconfigure;

import java.time.Duration;

import io.github.llmresilience.timeout.AdaptiveSettings;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code llm.resilience.timeouts.adaptive} properties: defaults, binding into
 * {@link AdaptiveSettings}, and validation.
 */
class AdaptiveTimeoutPropertiesTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LlmResilienceAutoConfiguration.class));

	@Test
	void theDefaultsAreTheSettingsDefaults() {
		this.runner.run((context) -> assertThat(context.getBean(PropertiesSettings.class).timeouts().adaptive())
			.isEqualTo(AdaptiveSettings.defaults()));
	}

	@Test
	void theFloorRatioIsBound() {
		this.runner
			.withPropertyValues("llm.resilience.timeouts.adaptive.floor-ratio=0.5",
					"llm.resilience.timeouts.adaptive.floor=2s")
			.run((context) -> {
				AdaptiveSettings adaptive = context.getBean(PropertiesSettings.class).timeouts().adaptive();
				assertThat(adaptive.floorRatio()).isEqualTo(0.5);
				assertThat(adaptive.floor()).isEqualTo(Duration.ofSeconds(2));
			});
	}

	@Test
	void whenTheFloorRatioIsAboveOneStartupFailsNamingTheRange() {
		this.runner.withPropertyValues("llm.resilience.timeouts.adaptive.floor-ratio=1.5").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(analyze(context.getStartupFailure()).getDescription())
				.contains("Property: llm.resilience.timeouts.adaptive.floor-ratio")
				.contains("must be between 0 and 1");
		});
	}

	@Test
	void whenTheFloorRatioIsNegativeStartupFailsNamingTheRange() {
		this.runner.withPropertyValues("llm.resilience.timeouts.adaptive.floor-ratio=-0.1").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(analyze(context.getStartupFailure()).getDescription())
				.contains("Property: llm.resilience.timeouts.adaptive.floor-ratio")
				.contains("must be between 0 and 1");
		});
	}

	private static FailureAnalysis analyze(Throwable failure) {
		FailureAnalysis analysis = new InvalidLlmResiliencePropertiesFailureAnalyzer().analyze(failure);
		assertThat(analysis).as("a failure analysis of %s", failure).isNotNull();
		return analysis;
	}

}
