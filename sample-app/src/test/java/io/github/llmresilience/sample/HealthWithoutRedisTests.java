package io.github.llmresilience.sample;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * The sample carries Spring Data Redis for fleet mode; with fleet mode off and no Redis
 * at {@code spring.data.redis.url}, the service is still UP.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@AutoConfigureWebTestClient
class HealthWithoutRedisTests {

	@DynamicPropertySource
	static void properties(DynamicPropertyRegistry registry) {
		int simulator = TestPorts.free();
		registry.add("sample.simulator.port", () -> simulator);
		// A port nothing listens on.
		int nothing = TestPorts.free();
		registry.add("spring.data.redis.url", () -> "redis://127.0.0.1:" + nothing);
	}

	@Autowired
	private WebTestClient http;

	@Test
	void healthIsUpWithoutRedis() {
		this.http.get()
			.uri("/actuator/health")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.status")
			.isEqualTo("UP");
	}

}
