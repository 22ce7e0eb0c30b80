package io.github.llmresilience.sample;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The simulator's degraded serving tier: every answer is a 200, with an empty body or the
 * first half of a vendor's answer, never a whole one.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "sample.simulator.latency-scale=0.02")
class DegradedTierTests {

	private static final int SIMULATOR_PORT = TestPorts.free();

	@DynamicPropertySource
	static void simulatorPort(DynamicPropertyRegistry registry) {
		registry.add("sample.simulator.port", () -> SIMULATOR_PORT);
	}

	@Test
	void aDegradedTierAnswers200WithAnEmptyOrTruncatedBody() {
		SimulatorAdmin simulator = new SimulatorAdmin(SIMULATOR_PORT);
		simulator.reset();
		simulator.mode("primary", "{\"mode\":\"degraded-tier\"}");
		WebTestClient http = WebTestClient.bindToServer()
			.baseUrl("http://127.0.0.1:" + SIMULATOR_PORT)
			.responseTimeout(Duration.ofSeconds(30))
			.build();
		for (int i = 0; i < 8; i++) {
			String body = http.post()
				.uri("/primary/v1/chat/completions")
				.contentType(MediaType.APPLICATION_JSON)
				.bodyValue("{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"ping\"}]}")
				.exchange()
				.expectStatus()
				.isOk()
				.expectBody(String.class)
				.returnResult()
				.getResponseBody();
			String text = (body != null) ? body.strip() : "";
			assertThat(text.isEmpty() || !text.endsWith("}")).as("a whole answer: %s", text).isTrue();
		}
		simulator.reset();
	}

}
