package io.github.llmresilience.autoconfigure;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import io.github.llmresilience.actuate.LlmResilienceStatusPageEndpoint;
import io.github.llmresilience.actuate.StatusPageView;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.state.FleetState;
import io.github.llmresilience.traffic.TrafficHistory;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.web.ExposableWebEndpoint;
import org.springframework.boot.actuate.endpoint.web.WebEndpointsSupplier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

class LlmResilienceStatusPageAutoConfigurationTests {

	private final ReactiveWebApplicationContextRunner runner = new ReactiveWebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LlmResilienceAutoConfiguration.class,
				LlmResilienceEventsAutoConfiguration.class, LlmResilienceStatusPageAutoConfiguration.class,
				EndpointAutoConfiguration.class, WebEndpointAutoConfiguration.class))
		.withPropertyValues("llm.resilience.targets.primary.provider=openai", "llm.resilience.chains.chat[0]=primary");

	@Test
	void offByDefault() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=*").run((context) -> {
			assertThat(context).hasSingleBean(LlmResilience.class);
			assertThat(context).doesNotHaveBean(LlmResilienceStatusPageEndpoint.class);
			assertThat(context).doesNotHaveBean(TrafficHistory.class);
		});
	}

	@Test
	void whenEnabledAndExposedServesTwoReadsAtLlmResilienceUnderTheActuator() {
		this.runner
			.withPropertyValues("llm.resilience.status-page.enabled=true",
					"management.endpoints.web.exposure.include=llmresiliencepage")
			.run((context) -> {
				assertThat(context).hasSingleBean(LlmResilienceStatusPageEndpoint.class);
				assertThat(context).hasSingleBean(TrafficHistory.class);
				assertThat(operations(context)).containsExactlyInAnyOrder("GET /actuator/llm-resilience",
						"GET /actuator/llm-resilience/{*path}");
			});
	}

	@Test
	void thePathCanBeMappedElsewhereLikeAnyEndpoints() {
		this.runner
			.withPropertyValues("llm.resilience.status-page.enabled=true",
					"management.endpoints.web.exposure.include=llmresiliencepage",
					"management.endpoints.web.path-mapping.llmresiliencepage=status")
			.run((context) -> assertThat(operations(context)).containsExactlyInAnyOrder("GET /actuator/status",
					"GET /actuator/status/{*path}"));
	}

	@Test
	void whenEnabledButNotExposedServesNothing() {
		this.runner
			.withPropertyValues("llm.resilience.status-page.enabled=true",
					"management.endpoints.web.exposure.include=llmresilience")
			.run((context) -> assertThat(context).doesNotHaveBean(LlmResilienceStatusPageEndpoint.class));
	}

	@Test
	void whenAccessIsNoneServesNothing() {
		this.runner
			.withPropertyValues("llm.resilience.status-page.enabled=true",
					"management.endpoints.web.exposure.include=llmresiliencepage",
					"management.endpoint.llmresiliencepage.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(LlmResilienceStatusPageEndpoint.class));
	}

	@Test
	void theTrafficHistoryIsOneOfTheExecutorsObservers() {
		this.runner.withPropertyValues("llm.resilience.status-page.enabled=true").run((context) -> {
			TrafficHistory traffic = context.getBean(TrafficHistory.class);
			LlmResilience resilience = context.getBean(LlmResilience.class);
			String answer = resilience.call("chat", (attempt) -> "answer");
			assertThat(answer).isEqualTo("answer");
			var window = traffic.window("primary", resilience.state().at());
			assertThat(IntStream.of(window.requests()).sum()).isEqualTo(1);
			assertThat(IntStream.of(window.failures()).sum()).isZero();
		});
	}

	@Test
	void whenActuatorIsAbsentServesNothingAndFailsNothing() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LlmResilienceAutoConfiguration.class,
					LlmResilienceEventsAutoConfiguration.class, LlmResilienceStatusPageAutoConfiguration.class))
			.withPropertyValues("llm.resilience.targets.primary.provider=openai",
					"llm.resilience.chains.chat[0]=primary", "llm.resilience.status-page.enabled=true")
			.withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate"))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).hasSingleBean(LlmResilience.class);
				assertThat(context).doesNotHaveBean("llmResilienceStatusPageEndpoint");
			});
	}

	private static List<String> operations(ApplicationContext context) {
		ExposableWebEndpoint endpoint = context.getBean(WebEndpointsSupplier.class)
			.getEndpoints()
			.stream()
			.filter((candidate) -> candidate.getEndpointId().toString().equals(LlmResilienceStatusPageEndpoint.ID))
			.findFirst()
			.orElseThrow();
		return endpoint.getOperations()
			.stream()
			.map((operation) -> operation.getRequestPredicate().getHttpMethod() + " /actuator/"
					+ operation.getRequestPredicate().getPath())
			.toList();
	}

	@Test
	void theFleetPanelShowsWhetherThePodIsConnectedAndWhoProbes() {
		assertThat(LlmResilienceStatusPageAutoConfiguration.fleet(FleetState.LOCAL)).isNull();
		FleetState fleet = new FleetState(true, true, "orders", "pod-1", Instant.EPOCH,
				Map.of("openai/gpt-4o/us", new FleetState.Domain("open", 0, 0, 0, 1, "pod-3", "trial failed"),
						"anthropic/claude/us", new FleetState.Domain("closed", 10, 0, 0, 0, "", "")));
		assertThat(LlmResilienceStatusPageAutoConfiguration.fleet(fleet))
			.isEqualTo(new StatusPageView.Fleet(true, "pod-3 (openai/gpt-4o/us)"));
		FleetState alone = new FleetState(true, false, "orders", "pod-1", null, Map.of());
		assertThat(LlmResilienceStatusPageAutoConfiguration.fleet(alone))
			.isEqualTo(new StatusPageView.Fleet(false, null));
	}

}
