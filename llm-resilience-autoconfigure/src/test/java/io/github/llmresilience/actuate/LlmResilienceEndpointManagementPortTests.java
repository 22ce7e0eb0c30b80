package io.github.llmresilience.actuate;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.llmresilience.change.RecentStateChanges;
import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.state.ChainState;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.MediaType;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With {@code management.server.port} set, the actuator runs in a child context on its
 * own server: the chain edit works there as on the application's server, on either web
 * stack, and a bad one is answered there the same way.
 */
@Timeout(value = ActuatorClients.HANG_MINUTES, unit = TimeUnit.MINUTES)
class LlmResilienceEndpointManagementPortTests {

	// Tomcat (for the servlet tests) is on the class path next to Reactor Netty, and each
	// offers a reactive management context factory: this application is on Netty.
	@Nested
	@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, classes = ActuatorTestApplication.class,
			properties = { "spring.main.web-application-type=reactive",
					"spring.autoconfigure.exclude=org.springframework.boot.tomcat.autoconfigure.actuate.web.server."
							+ "TomcatReactiveManagementContextAutoConfiguration" })
	class WebFlux extends Checks {

	}

	@Nested
	@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, classes = ActuatorTestApplication.class,
			properties = "spring.main.web-application-type=servlet")
	class Servlet extends Checks {

	}

	@TestPropertySource(properties = { ActuatorTestApplication.CHAT_CHAIN, "management.server.port=0",
			"management.endpoints.web.exposure.include=llmresilience",
			"management.endpoint.llmresilience.access=unrestricted" })
	abstract static class Checks {

		@LocalServerPort
		int serverPort;

		@LocalManagementPort
		int managementPort;

		@Autowired
		LlmResilience resilience;

		@Autowired
		RecentStateChanges recentChanges;

		@BeforeEach
		void configuredChain() {
			ChainState chat = this.resilience.state().chain("chat");
			if (chat.edited()) {
				this.resilience.operator().replaceChain("chat", chat.configuredTargets());
			}
		}

		@Test
		void onTheManagementPortACommaSeparatedListEditsTheChain() {
			assertThat(this.managementPort).isNotEqualTo(this.serverPort);
			post(this.managementPort, Map.of("targets", "secondary,primary")).expectStatus()
				.isOk()
				.expectBody()
				.jsonPath("$.targets")
				.isEqualTo(List.of("secondary", "primary"));
			assertThat(this.resilience.state().chain("chat").targets()).containsExactly("secondary", "primary");
		}

		@Test
		void onTheManagementPortABadChainEditIsA400ThatSaysWhatIsWrongAndChangesNothing() {
			List<StateChange> changesBefore = this.recentChanges.list();
			post(this.managementPort, Map.of("targets", "secondary,nope")).expectStatus()
				.isBadRequest()
				.expectBody()
				.jsonPath("$.message")
				.isEqualTo("Chain 'chat' names unknown target 'nope'; known targets: [primary, secondary]");
			post(this.managementPort, Map.of("targets", List.of("secondary", "primary"))).expectStatus().isBadRequest();
			assertThat(this.resilience.state().chain("chat").targets()).containsExactly("primary", "secondary");
			assertThat(this.recentChanges.list()).isEqualTo(changesBefore);
		}

		@Test
		void onTheApplicationsPortThereIsNoActuator() {
			post(this.serverPort, Map.of("targets", "secondary,primary")).expectStatus().isNotFound();
			assertThat(this.resilience.state().chain("chat").targets()).containsExactly("primary", "secondary");
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

}
