package io.github.llmresilience.autoconfigure;

import java.time.Duration;

import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.metrics.SpendMetrics;
import io.github.llmresilience.metrics.SpendStateMetrics;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The spend meters: {@code llm.resilience.spend} counts what each target's answers spent
 * (at its price, or in tokens), trigger on or off; the spend gauges exist per failure
 * domain when the trigger is on.
 */
class SpendMetricsAutoConfigurationTests {

	private static final String ANSWER = "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"choices\":[],"
			+ "\"usage\":{\"prompt_tokens\":2000,\"completion_tokens\":500,\"total_tokens\":2500}}";

	private final FakeProvider provider = new FakeProvider();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LlmResilienceAutoConfiguration.class,
				LlmResilienceMetricsAutoConfiguration.class, MetricsAutoConfiguration.class,
				SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class))
		.withPropertyValues("llm.resilience.targets.primary.provider=openai",
				"llm.resilience.targets.primary.model=gpt-4o",
				"llm.resilience.targets.primary.base-url=" + this.provider.baseUrl("primary"),
				"llm.resilience.chains.chat[0]=primary");

	@AfterEach
	void close() {
		this.provider.close();
	}

	@Test
	void aPricedTargetsAnswersAreCountedInMoney() {
		this.provider.always("primary", Reply.ok(ANSWER));
		this.runner
			.withPropertyValues("llm.resilience.targets.primary.price.input=2.50",
					"llm.resilience.targets.primary.price.output=10.00")
			.run((context) -> {
				assertThat(context).hasSingleBean(SpendMetrics.class);
				call(context.getBean(LlmResilience.class));
				// 2,000 in at 2.50 and 500 out at 10.00 per million.
				assertThat(context.getBean(MeterRegistry.class)
					.get(SpendMetrics.SPEND)
					.tags("target", "primary", "provider", "openai", "model", "gpt-4o", "unit", "price")
					.counter()
					.count()).isCloseTo(0.01, within(1e-12));
			});
	}

	@Test
	void withoutAPriceAnswersAreCountedInTokensAndNoGaugeExistsWhileTheTriggerIsOff() {
		this.provider.always("primary", Reply.ok(ANSWER));
		this.runner.run((context) -> {
			call(context.getBean(LlmResilience.class));
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get(SpendMetrics.SPEND).tags("target", "primary", "unit", "tokens").counter().count())
				.isEqualTo(2500);
			assertThat(registry.find(SpendStateMetrics.RATIO).gauges()).isEmpty();
		});
	}

	@Test
	void withTheTriggerOnEachDomainHasItsSpendGauges() {
		this.provider.always("primary", Reply.ok(ANSWER));
		this.runner.withPropertyValues("llm.resilience.spend.enabled=true").run((context) -> {
			call(context.getBean(LlmResilience.class));
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get(SpendStateMetrics.PER_CALL)
				.tags("name", "openai/gpt-4o/global", "unit", "tokens")
				.gauge()
				.value()).isEqualTo(2500);
			// No past window yet: nothing to compare with.
			assertThat(registry.get(SpendStateMetrics.MEDIAN).tags("name", "openai/gpt-4o/global").gauge().value())
				.isZero();
			assertThat(registry.get(SpendStateMetrics.RATIO).tags("name", "openai/gpt-4o/global").gauge().value())
				.isZero();
		});
	}

	private static void call(LlmResilience resilience) {
		WebClient client = WebClient.create();
		resilience.execute("chat",
				(attempt) -> client.post()
					.uri(attempt.target().baseUrl() + "/v1/chat/completions")
					.bodyValue("{}")
					.retrieve()
					.toEntity(String.class)
					.flatMap((entity) -> {
						attempt.answered(entity.getHeaders().asMultiValueMap(), entity.getBody());
						return Mono.justOrEmpty(entity.getBody());
					}))
			.block(Duration.ofSeconds(10));
	}

}
