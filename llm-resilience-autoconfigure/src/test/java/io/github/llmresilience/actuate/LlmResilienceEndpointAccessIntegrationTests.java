package io.github.llmresilience.actuate;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.llmresilience.change.RecentStateChanges;
import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.execute.LlmResilience;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Exposing the endpoint to read it does not hand out its levers: with nothing but
 * {@code management.endpoints.web.exposure.include}, over real HTTP on either web stack,
 * the state reads and every write is answered as Boot answers a request it maps to no
 * operation, 404, with nothing changed. (With
 * {@code management.endpoint.llmresilience.access=unrestricted} the writes work: see
 * {@link LlmResilienceActuatorIntegrationTests} and
 * {@link LlmResilienceServletActuatorIntegrationTests}.)
 */
@Timeout(value = ActuatorClients.HANG_MINUTES, unit = TimeUnit.MINUTES)
class LlmResilienceEndpointAccessIntegrationTests {

	@Nested
	@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, classes = ActuatorTestApplication.class,
			properties = "spring.main.web-application-type=reactive")
	class WebFlux extends Checks {

	}

	@Nested
	@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, classes = ActuatorTestApplication.class,
			properties = "spring.main.web-application-type=servlet")
	class Servlet extends Checks {

	}

	@TestPropertySource(properties = { ActuatorTestApplication.CHAT_CHAIN,
			"management.endpoints.web.exposure.include=health,llmresilience",
			"llm.resilience.targets.primary.account=acct-a", "llm.resilience.targets.secondary.account=acct-b" })
	abstract static class Checks {

		@LocalServerPort
		int port;

		@Autowired
		LlmResilience resilience;

		@Autowired
		RecentStateChanges recentChanges;

		@Test
		void theStateReads() {
			client().get()
				.uri("/llmresilience")
				.exchange()
				.expectStatus()
				.isOk()
				.expectBody()
				.jsonPath("$.chains.chat.targets")
				.isEqualTo(List.of("primary", "secondary"));
			client().get().uri("/llmresilience/primary").exchange().expectStatus().isOk();
		}

		@Test
		void everyWriteIsNotFoundAndChangesNothing() {
			List<StateChange> changesBefore = this.recentChanges.list();

			post("/targets/primary", Map.of("action", "force-open")).expectStatus().isNotFound();
			post("/targets/secondary", Map.of("action", "reset")).expectStatus().isNotFound();
			post("/accounts/acct-a", Map.of("action", "unpark")).expectStatus().isNotFound();
			post("/accounts/acct-b", Map.of("action", "unlock")).expectStatus().isNotFound();
			post("/chains/chat", Map.of("targets", "secondary,primary")).expectStatus().isNotFound();
			post("/classification/rules", Map.of("action", "add", "status", "418", "outcome", "QUOTA")).expectStatus()
				.isNotFound();
			// There is no delete operation at all, whatever the access.
			client().method(HttpMethod.DELETE).uri("/llmresilience/chains/chat").exchange().expectStatus().isNotFound();

			assertThat(this.resilience.state().target("primary").breaker().status().name()).isEqualTo("CLOSED");
			assertThat(this.resilience.state().target("secondary").breaker().status().name()).isEqualTo("CLOSED");
			assertThat(this.resilience.state().chain("chat").targets()).containsExactly("primary", "secondary");
			assertThat(this.resilience.classificationRules().rules()).isEmpty();
			assertThat(this.recentChanges.list()).isEqualTo(changesBefore);
		}

		@Test
		void aWriteToAReadPathIsMethodNotAllowed() {
			// Where Boot maps a read at the same path, it says which method it takes.
			post("", Map.of("action", "force-open")).expectStatus().isEqualTo(405);
			assertThat(this.resilience.state().target("primary").breaker().status().name()).isEqualTo("CLOSED");
		}

		private WebTestClient client() {
			return ActuatorClients.to(this.port, "/actuator");
		}

		private WebTestClient.ResponseSpec post(String path, Map<String, ?> body) {
			return client().post()
				.uri("/llmresilience" + path)
				.contentType(MediaType.APPLICATION_JSON)
				.bodyValue(body)
				.exchange();
		}

	}

}
