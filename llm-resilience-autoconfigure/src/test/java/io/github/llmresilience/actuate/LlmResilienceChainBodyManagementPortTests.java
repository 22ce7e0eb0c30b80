package io.github.llmresilience.actuate;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.state.ChainState;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With {@code management.server.port} set, the actuator runs in a child context on its
 * own server: the chain edit's JSON array works there, on either web stack, because the
 * filter is registered in that child context (and not in the application's).
 */
@Timeout(value = ActuatorClients.HANG_MINUTES, unit = TimeUnit.MINUTES)
class LlmResilienceChainBodyManagementPortTests {

	// Tomcat (for the servlet tests) is on the class path next to Reactor Netty, and each
	// offers a reactive management context factory: this application is on Netty.
	@Nested
	@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, classes = Application.class,
			properties = { "spring.main.web-application-type=reactive",
					"spring.autoconfigure.exclude=org.springframework.boot.tomcat.autoconfigure.actuate.web.server."
							+ "TomcatReactiveManagementContextAutoConfiguration" })
	class WebFlux extends Checks {

		@Test
		void theFilterIsInTheManagementContextOnly() {
			assertThat(this.context.getBeansOfType(LlmResilienceChainBodyWebFilter.class)).isEmpty();
		}

	}

	@Nested
	@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, classes = Application.class,
			properties = "spring.main.web-application-type=servlet")
	class Servlet extends Checks {

		@Test
		void theFilterIsInTheManagementContextOnly() {
			assertThat(this.context.getBeansOfType(LlmResilienceChainBodyServletFilter.class)).isEmpty();
		}

	}

	@TestPropertySource(properties = { "management.server.port=0",
			"management.endpoints.web.exposure.include=llmresilience",
			"management.endpoint.llmresilience.access=unrestricted",
			"llm.resilience.targets.primary.provider=openai", "llm.resilience.targets.primary.model=gpt-4o",
			"llm.resilience.targets.secondary.provider=openai", "llm.resilience.targets.secondary.model=gpt-4o-mini",
			"llm.resilience.chains.chat=primary,secondary" })
	abstract static class Checks {

		@LocalServerPort
		int serverPort;

		@LocalManagementPort
		int managementPort;

		@Autowired
		ApplicationContext context;

		@Autowired
		LlmResilience resilience;

		@BeforeEach
		void configuredChain() {
			ChainState chat = this.resilience.state().chain("chat");
			if (chat.edited()) {
				this.resilience.operator().replaceChain("chat", chat.configuredTargets());
			}
		}

		@Test
		void onTheManagementPortAJsonArrayEditsTheChain() {
			assertThat(this.managementPort).isNotEqualTo(this.serverPort);
			post(this.managementPort, Map.of("targets", List.of("secondary", "primary"))).expectStatus()
				.isOk()
				.expectBody()
				.jsonPath("$.targets")
				.isEqualTo(List.of("secondary", "primary"));
			assertThat(this.resilience.state().chain("chat").targets()).containsExactly("secondary", "primary");
		}

		@Test
		void onTheManagementPortABadJsonArrayIsA400ThatSaysWhatIsWrong() {
			post(this.managementPort, Map.of("targets", List.of(7))).expectStatus()
				.isBadRequest()
				.expectBody()
				.jsonPath("$.message")
				.isEqualTo("\"targets\"[0] is not a target name but a number (7): \"targets\" lists the chain's "
						+ "target names in order, such as [\"secondary\", \"primary\"]");
			assertThat(this.resilience.state().chain("chat").targets()).containsExactly("primary", "secondary");
		}

		@Test
		void onTheApplicationsPortThereIsNoActuatorAndNoFilter() {
			post(this.serverPort, Map.of("targets", List.of(7))).expectStatus().isNotFound();
		}

		private WebTestClient.ResponseSpec post(int port, Map<String, ?> body) {
			return ActuatorClients.to(port, "")
				.post()
				.uri("/actuator/llmresilience/chains/chat")
				.contentType(MediaType.APPLICATION_JSON)
				.bodyValue(body)
				.exchange();
		}

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

	}

}
