package io.github.llmresilience.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.llmresilience.actuate.LlmResilienceChainBodyServletFilter;
import io.github.llmresilience.actuate.LlmResilienceChainBodyWebFilter;
import io.github.llmresilience.actuate.LlmResilienceEndpoint;
import io.github.llmresilience.actuate.LlmResilienceEndpointWebExtension;
import io.github.llmresilience.execute.LlmResilience;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.web.ExposableWebEndpoint;
import org.springframework.boot.actuate.endpoint.web.WebEndpointsSupplier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;

import static org.assertj.core.api.Assertions.assertThat;

class LlmResilienceEndpointAutoConfigurationTests {

	/** Spring Security's filter chain, servlet and WebFlux alike. */
	private static final int SECURITY_FILTER_ORDER = -100;

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
			.run((context) -> assertThat(operations(context)).containsExactlyInAnyOrder(
					"GET /actuator/llmresilience", "GET /actuator/llmresilience/{name}"));
	}

	@Test
	void whenAccessIsUnrestrictedTheEndpointOffersTwoReadsAndOneWrite() {
		// Upper case: a context runner has no SpringApplication's lenient enum conversion
		// (an application takes "unrestricted" as well).
		webRunner()
			.withPropertyValues("management.endpoints.web.exposure.include=llmresilience",
					"management.endpoint.llmresilience.access=UNRESTRICTED")
			.run((context) -> assertThat(operations(context)).containsExactlyInAnyOrder(
					"GET /actuator/llmresilience", "GET /actuator/llmresilience/{name}",
					"POST /actuator/llmresilience/{kind}/{name}"));
	}

	@Test
	void whenTheDefaultAccessOfAllEndpointsIsUnrestrictedTheWriteIsOffered() {
		webRunner()
			.withPropertyValues("management.endpoints.web.exposure.include=llmresilience",
					"management.endpoints.access.default=UNRESTRICTED")
			.run((context) -> assertThat(operations(context))
				.contains("POST /actuator/llmresilience/{kind}/{name}"));
	}

	@Test
	void whenAccessIsCappedAtReadOnlyTheWriteIsNotOfferedEvenIfAsked() {
		webRunner()
			.withPropertyValues("management.endpoints.web.exposure.include=llmresilience",
					"management.endpoint.llmresilience.access=UNRESTRICTED",
					"management.endpoints.access.max-permitted=READ_ONLY")
			.run((context) -> assertThat(operations(context)).containsExactlyInAnyOrder(
					"GET /actuator/llmresilience", "GET /actuator/llmresilience/{name}"));
	}

	@Test
	void whenAccessIsReadOnlyTheWriteIsNotOffered() {
		webRunner()
			.withPropertyValues("management.endpoints.web.exposure.include=llmresilience",
					"management.endpoint.llmresilience.access=READ_ONLY")
			.run((context) -> assertThat(operations(context)).containsExactlyInAnyOrder(
					"GET /actuator/llmresilience", "GET /actuator/llmresilience/{name}"));
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

	// The chain body adapter ------------------------------------------------------------

	@Test
	void whenExposedOverTheWebInAReactiveApplicationRegistersTheWebFilterBodyAdapter() {
		webRunner().withPropertyValues("management.endpoints.web.exposure.include=llmresilience").run((context) -> {
			assertThat(context).hasSingleBean(LlmResilienceChainBodyWebFilter.class);
			assertThat(context).doesNotHaveBean(LlmResilienceChainBodyServletFilter.class);
			assertThat(context.getBean(LlmResilienceChainBodyWebFilter.class).getOrder())
				.isGreaterThan(SECURITY_FILTER_ORDER);
		});
	}

	@Test
	void whenExposedOverTheWebInAServletApplicationRegistersTheServletFilterBodyAdapter() {
		servletRunner().withPropertyValues("management.endpoints.web.exposure.include=llmresilience")
			.run((context) -> {
				assertThat(context).hasSingleBean(LlmResilienceChainBodyServletFilter.class);
				assertThat(context).doesNotHaveBean(LlmResilienceChainBodyWebFilter.class);
				assertThat(context.getBean(LlmResilienceChainBodyServletFilter.class).getOrder())
					.isGreaterThan(SECURITY_FILTER_ORDER);
			});
	}

	@Test
	void whenEndpointNotExposedRegistersNoBodyAdapter() {
		webRunner().run((context) -> {
			assertThat(context).hasSingleBean(LlmResilience.class);
			assertThat(context).doesNotHaveBean(LlmResilienceChainBodyWebFilter.class);
		});
		servletRunner().run((context) -> {
			assertThat(context).hasSingleBean(LlmResilience.class);
			assertThat(context).doesNotHaveBean(LlmResilienceChainBodyServletFilter.class);
		});
	}

	@Test
	void whenEndpointExposedOnlyOverJmxRegistersNoBodyAdapter() {
		webRunner()
			.withPropertyValues("spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=llmresilience")
			.run((context) -> {
				assertThat(context).hasSingleBean(LlmResilienceEndpoint.class);
				assertThat(context).doesNotHaveBean(LlmResilienceChainBodyWebFilter.class);
			});
	}

	@Test
	void whenEndpointAccessIsNoneRegistersNoBodyAdapter() {
		servletRunner()
			.withPropertyValues("management.endpoints.web.exposure.include=llmresilience",
					"management.endpoint.llmresilience.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(LlmResilienceChainBodyServletFilter.class));
	}

	@Test
	void whenNotAWebApplicationRegistersNoBodyAdapter() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=llmresilience").run((context) -> {
			assertThat(context).hasSingleBean(LlmResilienceEndpoint.class);
			assertThat(context).doesNotHaveBean(LlmResilienceChainBodyWebFilter.class);
			assertThat(context).doesNotHaveBean(LlmResilienceChainBodyServletFilter.class);
		});
	}

	@Test
	void whenJacksonIsAbsentRegistersNoBodyAdapter() {
		webRunner().withPropertyValues("management.endpoints.web.exposure.include=llmresilience")
			.withClassLoader(new FilteredClassLoader("tools.jackson"))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).hasSingleBean(LlmResilienceEndpoint.class);
				assertThat(context).doesNotHaveBean(LlmResilienceChainBodyWebFilter.class);
			});
	}

	@Test
	void whenTheManagementPortDiffersRegistersNoBodyAdapterInTheApplicationContext() {
		// The actuator's child context gets it (see LlmResilienceChainBodyManagementPortTests).
		webRunner()
			.withPropertyValues("management.endpoints.web.exposure.include=llmresilience",
					"management.server.port=18081")
			.run((context) -> {
				assertThat(context).hasSingleBean(LlmResilienceEndpoint.class);
				assertThat(context).doesNotHaveBean(LlmResilienceChainBodyWebFilter.class);
			});
	}

	@Test
	void whenTheUserDefinesABodyAdapterTheirsWins() {
		webRunner().withPropertyValues("management.endpoints.web.exposure.include=llmresilience")
			.withUserConfiguration(OwnBodyAdaptersConfiguration.class)
			.run((context) -> {
				assertThat(context).hasSingleBean(LlmResilienceChainBodyWebFilter.class);
				assertThat(context.getBean(LlmResilienceChainBodyWebFilter.class))
					.isSameAs(context.getBean("myWebFilter"));
			});
		servletRunner().withPropertyValues("management.endpoints.web.exposure.include=llmresilience")
			.withUserConfiguration(OwnBodyAdaptersConfiguration.class)
			.run((context) -> {
				assertThat(context).hasSingleBean(LlmResilienceChainBodyServletFilter.class);
				assertThat(context.getBean(LlmResilienceChainBodyServletFilter.class))
					.isSameAs(context.getBean("myServletFilter"));
			});
	}

	@Test
	void theBodyAdapterAnswersABadArrayOnlyWhereBootMapsTheChainEdit() {
		String badArray = "{\"targets\": [42]}";
		webRunner()
			.withPropertyValues("management.endpoints.web.exposure.include=llmresilience",
					"management.endpoint.llmresilience.access=UNRESTRICTED")
			.run((context) -> {
				LlmResilienceChainBodyWebFilter filter = context.getBean(LlmResilienceChainBodyWebFilter.class);
				assertThat(filtered(filter, "/actuator/llmresilience/chains/chat", badArray).status())
					.isEqualTo(HttpStatus.BAD_REQUEST);
				// Not a chain edit: another kind, a deeper path, no name, another endpoint.
				for (String path : List.of("/actuator/llmresilience/targets/chat",
						"/actuator/llmresilience/chains/chat/x", "/actuator/llmresilience/chains/",
						"/actuator/other/chains/chat")) {
					assertThat(filtered(filter, path, badArray).passedOn()).as(path).isTrue();
				}
			});
		// Read-only access, explicit or by default: Boot maps no write operation, so Boot
		// answers, not the adapter.
		webRunner()
			.withPropertyValues("management.endpoints.web.exposure.include=llmresilience",
					"management.endpoint.llmresilience.access=READ_ONLY")
			.run((context) -> assertPassedOnUntouched(context, badArray));
		webRunner().withPropertyValues("management.endpoints.web.exposure.include=llmresilience")
			.run((context) -> assertPassedOnUntouched(context, badArray));
	}

	private static void assertPassedOnUntouched(ApplicationContext context, String body) {
		LlmResilienceChainBodyWebFilter filter = context.getBean(LlmResilienceChainBodyWebFilter.class);
		Filtered filtered = filtered(filter, "/actuator/llmresilience/chains/chat", body);
		assertThat(filtered.passedOn()).isTrue();
		assertThat(filtered.status()).isNull();
	}

	private static Filtered filtered(LlmResilienceChainBodyWebFilter filter, String path, String body) {
		MockServerWebExchange exchange = MockServerWebExchange
			.from(MockServerHttpRequest.post(path).contentType(MediaType.APPLICATION_JSON).body(body));
		AtomicBoolean passedOn = new AtomicBoolean();
		filter.filter(exchange, (passed) -> {
			passedOn.set(true);
			return Mono.empty();
		}).block(Duration.ofSeconds(5));
		return new Filtered(passedOn.get(), (HttpStatus) exchange.getResponse().getStatusCode());
	}

	private record Filtered(boolean passedOn, @Nullable HttpStatus status) {

	}

	private ReactiveWebApplicationContextRunner webRunner() {
		return new ReactiveWebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LlmResilienceAutoConfiguration.class,
					LlmResilienceEndpointAutoConfiguration.class, EndpointAutoConfiguration.class,
					WebEndpointAutoConfiguration.class))
			.withPropertyValues("llm.resilience.targets.primary.provider=openai",
					"llm.resilience.chains.chat[0]=primary");
	}

	private WebApplicationContextRunner servletRunner() {
		return new WebApplicationContextRunner()
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
	static class OwnBodyAdaptersConfiguration {

		@Bean
		LlmResilienceChainBodyWebFilter myWebFilter() {
			return new LlmResilienceChainBodyWebFilter(() -> null);
		}

		@Bean
		LlmResilienceChainBodyServletFilter myServletFilter() {
			return new LlmResilienceChainBodyServletFilter(() -> null);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnEndpointConfiguration {

		@Bean
		LlmResilienceEndpoint myEndpoint(LlmResilience resilience) {
			return new LlmResilienceEndpoint(resilience, null, null);
		}

	}

}
