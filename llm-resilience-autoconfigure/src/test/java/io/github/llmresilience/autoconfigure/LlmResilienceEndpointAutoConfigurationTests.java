package io.github.llmresilience.autoconfigure;

import java.util.List;

import io.github.llmresilience.actuate.LlmResilienceEndpoint;
import io.github.llmresilience.actuate.LlmResilienceEndpointWebExtension;
import io.github.llmresilience.execute.LlmResilience;
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
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

class LlmResilienceEndpointAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LlmResilienceAutoConfiguration.class,
				LlmResilienceEventsAutoConfiguration.class, LlmResilienceEndpointAutoConfiguration.class))
		.withPropertyValues("llm.resilience.targets.primary.provider=openai", "llm.resilience.chains.chat[0]=primary");

	@Test
	void whenExposedOverTheWebProvidesTheEndpointAndItsWebExtension() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=llmresilience").run((context) -> {
			assertThat(context).hasSingleBean(LlmResilienceEndpoint.class);
			assertThat(context).hasSingleBean(LlmResilienceEndpointWebExtension.class);
			assertThat(context.getBean(LlmResilienceEndpoint.class).resilience().targets()).containsOnlyKeys("primary");
		});
	}

	@Test
	void exposedOverTheWebTheEndpointIsReadOnlyByDefault() {
		webRunner().withPropertyValues("management.endpoints.web.exposure.include=llmresilience")
			.run((context) -> assertThat(operations(context)).containsExactlyInAnyOrder("GET /actuator/llmresilience",
					"GET /actuator/llmresilience/{name}", "GET /actuator/llmresilience/{section}/{operation}/{name}"));
	}

	@Test
	void whenAccessIsUnrestrictedTheEndpointOffersThreeReadsAndOneWrite() {
		// Upper case: a context runner has no SpringApplication's lenient enum conversion
		// (an application takes "unrestricted" as well).
		webRunner()
			.withPropertyValues("management.endpoints.web.exposure.include=llmresilience",
					"management.endpoint.llmresilience.access=UNRESTRICTED")
			.run((context) -> assertThat(operations(context)).containsExactlyInAnyOrder("GET /actuator/llmresilience",
					"GET /actuator/llmresilience/{name}", "GET /actuator/llmresilience/{section}/{operation}/{name}",
					"POST /actuator/llmresilience/{kind}/{name}"));
	}

	@Test
	void whenTheDefaultAccessOfAllEndpointsIsUnrestrictedTheWriteIsOffered() {
		webRunner()
			.withPropertyValues("management.endpoints.web.exposure.include=llmresilience",
					"management.endpoints.access.default=UNRESTRICTED")
			.run((context) -> assertThat(operations(context)).contains("POST /actuator/llmresilience/{kind}/{name}"));
	}

	@Test
	void whenAccessIsCappedAtReadOnlyTheWriteIsNotOfferedEvenIfAsked() {
		webRunner()
			.withPropertyValues("management.endpoints.web.exposure.include=llmresilience",
					"management.endpoint.llmresilience.access=UNRESTRICTED",
					"management.endpoints.access.max-permitted=READ_ONLY")
			.run((context) -> assertThat(operations(context)).containsExactlyInAnyOrder("GET /actuator/llmresilience",
					"GET /actuator/llmresilience/{name}", "GET /actuator/llmresilience/{section}/{operation}/{name}"));
	}

	@Test
	void whenAccessIsReadOnlyTheWriteIsNotOffered() {
		webRunner()
			.withPropertyValues("management.endpoints.web.exposure.include=llmresilience",
					"management.endpoint.llmresilience.access=READ_ONLY")
			.run((context) -> assertThat(operations(context)).containsExactlyInAnyOrder("GET /actuator/llmresilience",
					"GET /actuator/llmresilience/{name}", "GET /actuator/llmresilience/{section}/{operation}/{name}"));
	}

	@Test
	void whenNotExposedProvidesNoEndpoint() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(LlmResilience.class);
			assertThat(context).doesNotHaveBean(LlmResilienceEndpoint.class);
			assertThat(context).doesNotHaveBean(LlmResilienceEndpointWebExtension.class);
		});
	}

	@Test
	void whenExposedOnlyOverJmxProvidesNoWebExtension() {
		this.runner
			.withPropertyValues("spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=llmresilience")
			.run((context) -> {
				assertThat(context).hasSingleBean(LlmResilienceEndpoint.class);
				assertThat(context).doesNotHaveBean(LlmResilienceEndpointWebExtension.class);
			});
	}

	@Test
	void whenAccessIsNoneProvidesNoEndpoint() {
		this.runner
			.withPropertyValues("management.endpoints.web.exposure.include=llmresilience",
					"management.endpoint.llmresilience.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(LlmResilienceEndpoint.class));
	}

	@Test
	void whenActuatorIsAbsentProvidesNoEndpoint() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=llmresilience")
			.withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate"))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).hasSingleBean(LlmResilience.class);
				assertThat(context).doesNotHaveBean("llmResilienceEndpoint");
			});
	}

	@Test
	void whenLlmResilienceIsDisabledProvidesNoEndpoint() {
		this.runner
			.withPropertyValues("management.endpoints.web.exposure.include=llmresilience",
					"llm.resilience.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LlmResilienceEndpoint.class));
	}

	@Test
	void whenTheUserDefinesTheEndpointTheirsWins() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=llmresilience")
			.withUserConfiguration(OwnEndpointConfiguration.class)
			.run((context) -> {
				assertThat(context).hasSingleBean(LlmResilienceEndpoint.class);
				assertThat(context.getBean(LlmResilienceEndpoint.class)).isSameAs(context.getBean("myEndpoint"));
				assertThat(context.getBean(LlmResilienceEndpoint.class).resilience().events()).isEmpty();
			});
	}

	private ReactiveWebApplicationContextRunner webRunner() {
		return new ReactiveWebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LlmResilienceAutoConfiguration.class,
					LlmResilienceEndpointAutoConfiguration.class, EndpointAutoConfiguration.class,
					WebEndpointAutoConfiguration.class))
			.withPropertyValues("llm.resilience.targets.primary.provider=openai",
					"llm.resilience.chains.chat[0]=primary");
	}

	private static List<String> operations(ApplicationContext context) {
		ExposableWebEndpoint endpoint = context.getBean(WebEndpointsSupplier.class)
			.getEndpoints()
			.stream()
			.filter((candidate) -> candidate.getEndpointId().toString().equals("llmresilience"))
			.findFirst()
			.orElseThrow();
		return endpoint.getOperations()
			.stream()
			.map((operation) -> operation.getRequestPredicate().getHttpMethod() + " /actuator/"
					+ operation.getRequestPredicate().getPath())
			.toList();
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnEndpointConfiguration {

		@Bean
		LlmResilienceEndpoint myEndpoint(LlmResilience resilience) {
			return new LlmResilienceEndpoint(resilience, null, null);
		}

	}

}
