package io.github.llmresilience.autoconfigure;

import java.time.Duration;

import io.github.llmresilience.autoconfigure.InvalidLlmResiliencePropertiesException.Problem;
import io.github.llmresilience.execute.LlmResilience;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code llm.resilience.spend.*} and {@code llm.resilience.targets.<name>.price.*}: off
 * by default, bound from yml, and a bad value stops startup naming its property and the
 * allowed range.
 */
class SpendPropertiesTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LlmResilienceAutoConfiguration.class))
		.withPropertyValues("llm.resilience.targets.primary.provider=openai",
				"llm.resilience.targets.primary.model=gpt-4o", "llm.resilience.chains.chat[0]=primary");

	@Test
	void spendIsOffByDefaultWithItsDocumentedThresholds() {
		LlmResilienceProperties.Spend spend = new LlmResilienceProperties().getSpend();
		assertThat(spend.isEnabled()).isFalse();
		assertThat(spend.getWindow()).isEqualTo(Duration.ofMinutes(5));
		assertThat(spend.getHistory()).isEqualTo(12);
		assertThat(spend.getMinWindows()).isEqualTo(3);
		assertThat(spend.getMinCalls()).isEqualTo(10);
		assertThat(spend.getOpenMultiple()).isEqualTo(3.0);
		assertThat(spend.getAlertMultiple()).isEqualTo(2.0);
		assertThat(spend.getAdoptAfter()).isEqualTo(6);
		assertThat(PropertiesSettings.problems(new LlmResilienceProperties())).isEmpty();
	}

	@Test
	void spendAndPricesBindFromProperties() {
		this.runner.withPropertyValues("llm.resilience.spend.enabled=true", "llm.resilience.spend.window=1m",
				"llm.resilience.spend.history=30", "llm.resilience.spend.min-windows=5",
				"llm.resilience.spend.min-calls=20", "llm.resilience.spend.open-multiple=4",
				"llm.resilience.spend.alert-multiple=2.5", "llm.resilience.spend.adopt-after=0",
				"llm.resilience.targets.primary.price.input=2.50", "llm.resilience.targets.primary.price.output=10.00")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				PropertiesSettings settings = context.getBean(PropertiesSettings.class);
				assertThat(settings.spend().window()).isEqualTo(Duration.ofMinutes(1));
				assertThat(settings.spend().alertMultiple()).isEqualTo(2.5);
				assertThat(settings.spend().adoptAfter()).isZero();
				assertThat(settings.prices().get("primary"))
					.isEqualTo(new io.github.llmresilience.spend.Price(2.5, 10));
				assertThat(context.getBean(LlmResilience.class).state().target("primary").breaker().reason()).isNull();
			});
	}

	@Test
	void anAlertAtOrAboveTheOpeningStopsStartupNamingBoth() {
		this.runner.withPropertyValues("llm.resilience.spend.alert-multiple=3.5").run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = new InvalidLlmResiliencePropertiesFailureAnalyzer()
				.analyze(context.getStartupFailure());
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).contains("Property: llm.resilience.spend.open-multiple")
				.contains("must be above llm.resilience.spend.alert-multiple (3.5)");
		});
	}

	@Test
	void badValuesAreNamedByTheirProperty() {
		assertThat(problem((p) -> p.getSpend().setWindow(Duration.ofMillis(500))))
			.isEqualTo(new Problem("llm.resilience.spend.window", "PT0.5S", "must be between 1 s and 1 day"));
		assertThat(problem((p) -> p.getSpend().setHistory(2)))
			.isEqualTo(new Problem("llm.resilience.spend.history", "2", "must be between 3 and 1000"));
		assertThat(problem((p) -> p.getSpend().setMinWindows(13))).isEqualTo(new Problem(
				"llm.resilience.spend.min-windows", "13", "must be between 1 and llm.resilience.spend.history (12)"));
		assertThat(problem((p) -> p.getSpend().setMinCalls(0)))
			.isEqualTo(new Problem("llm.resilience.spend.min-calls", "0", "must be between 1 and 1000000"));
		assertThat(problem((p) -> p.getSpend().setAlertMultiple(1.0)))
			.isEqualTo(new Problem("llm.resilience.spend.alert-multiple", "1.0", "must be above 1 and at most 1000"));
		assertThat(problem((p) -> p.getSpend().setOpenMultiple(0.5)))
			.isEqualTo(new Problem("llm.resilience.spend.open-multiple", "0.5", "must be above 1 and at most 1000"));
		assertThat(problem((p) -> p.getSpend().setAdoptAfter(-1)))
			.isEqualTo(new Problem("llm.resilience.spend.adopt-after", "-1", "must be between 0 and 1000"));
		assertThat(problem((p) -> {
			LlmResilienceProperties.TargetProperties target = new LlmResilienceProperties.TargetProperties();
			target.setProvider("openai");
			target.getPrice().setInput(-2.5);
			p.getTargets().put("primary", target);
		})).isEqualTo(new Problem("llm.resilience.targets.primary.price.input", "-2.5",
				"must be zero or positive (per million tokens)"));
	}

	@Test
	void targetsSharingAFailureDomainMustShareAPrice() {
		this.runner
			.withPropertyValues("llm.resilience.targets.backup.provider=openai",
					"llm.resilience.targets.backup.model=gpt-4o", "llm.resilience.targets.backup.account=other",
					"llm.resilience.targets.primary.price.output=10", "llm.resilience.chains.chat[1]=backup")
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new InvalidLlmResiliencePropertiesFailureAnalyzer()
					.analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription()).contains("openai/gpt-4o/global").contains("different prices");
			});
	}

	private static Problem problem(java.util.function.Consumer<LlmResilienceProperties> change) {
		LlmResilienceProperties properties = new LlmResilienceProperties();
		change.accept(properties);
		assertThat(PropertiesSettings.problems(properties)).hasSize(1);
		return PropertiesSettings.problems(properties).get(0);
	}

}
