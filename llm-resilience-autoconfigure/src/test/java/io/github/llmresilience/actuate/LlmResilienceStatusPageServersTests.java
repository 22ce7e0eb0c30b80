package io.github.llmresilience.actuate;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.MediaType;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The status page wherever the actuator is: on a Spring MVC application's own server, and
 * on a separate management server (under its base path) of either web stack, where the
 * application's server does not serve it.
 */
@Timeout(value = ActuatorClients.HANG_MINUTES, unit = TimeUnit.MINUTES)
class LlmResilienceStatusPageServersTests {

	@Nested
	@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, classes = ActuatorTestApplication.class,
			properties = "spring.main.web-application-type=servlet")
	class ServletOnTheApplicationsPort extends Checks {

		@LocalServerPort
		int port;

		@Test
		void servesThePageAndItsView() {
			pageAndView(this.port, "/actuator");
		}

	}

	// Tomcat (for the servlet tests) is on the class path next to Reactor Netty, and each
	// offers a reactive management context factory: this application is on Netty.
	@Nested
	@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, classes = ActuatorTestApplication.class,
			properties = { "spring.main.web-application-type=reactive", "management.server.port=0",
					"management.endpoints.web.base-path=/manage",
					"spring.autoconfigure.exclude=org.springframework.boot.tomcat.autoconfigure.actuate.web.server."
							+ "TomcatReactiveManagementContextAutoConfiguration" })
	class WebFluxOnTheManagementPort extends Checks {

		@LocalServerPort
		int serverPort;

		@LocalManagementPort
		int managementPort;

		@Test
		void servesThePageAndItsViewThereOnly() {
			assertThat(this.managementPort).isNotEqualTo(this.serverPort);
			pageAndView(this.managementPort, "/manage");
			ActuatorClients.to(this.serverPort, "")
				.get()
				.uri("/manage/llm-resilience/")
				.exchange()
				.expectStatus()
				.isNotFound();
		}

	}

	@Nested
	@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, classes = ActuatorTestApplication.class,
			properties = { "spring.main.web-application-type=servlet", "management.server.port=0" })
	class ServletOnTheManagementPort extends Checks {

		@LocalServerPort
		int serverPort;

		@LocalManagementPort
		int managementPort;

		@Test
		void servesThePageAndItsViewThereOnly() {
			assertThat(this.managementPort).isNotEqualTo(this.serverPort);
			pageAndView(this.managementPort, "/actuator");
			ActuatorClients.to(this.serverPort, "")
				.get()
				.uri("/actuator/llm-resilience/")
				.exchange()
				.expectStatus()
				.isNotFound();
		}

	}

	@TestPropertySource(properties = { ActuatorTestApplication.CHAT_CHAIN, "llm.resilience.status-page.enabled=true",
			"management.endpoints.web.exposure.include=llmresiliencepage" })
	abstract static class Checks {

		static void pageAndView(int port, String basePath) {
			for (String path : new String[] { "/llm-resilience/", "/llm-resilience" }) {
				String page = ActuatorClients.to(port, basePath)
					.get()
					.uri(path)
					.accept(MediaType.TEXT_HTML)
					.exchange()
					.expectStatus()
					.isOk()
					.expectHeader()
					.contentTypeCompatibleWith(MediaType.TEXT_HTML)
					.expectBody(String.class)
					.returnResult()
					.getResponseBody();
				assertThat(page).contains("<title>llm-resilience status</title>");
			}
			ActuatorClients.to(port, basePath)
				.get()
				.uri("/llm-resilience/state")
				.exchange()
				.expectStatus()
				.isOk()
				.expectHeader()
				.contentTypeCompatibleWith(MediaType.APPLICATION_JSON)
				.expectBody()
				.jsonPath("$.chains[0].serving")
				.isEqualTo("primary")
				.jsonPath("$.targets[1].name")
				.isEqualTo("secondary");
		}

	}

}
