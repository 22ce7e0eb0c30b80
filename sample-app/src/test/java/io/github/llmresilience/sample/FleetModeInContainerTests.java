package io.github.llmresilience.sample;

import java.time.Duration;

import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.test.RedisContainers;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What {@code spring-boot:test-run} starts ({@link TestSampleApplication}): the sample in
 * fleet mode on a Redis container that {@code @ServiceConnection} hands to Boot. It
 * shares state through that Redis (connected, health {@code UP} with
 * {@code fleet: connected}) and answers.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "llm.resilience.fleet.enabled=true", "spring.application.name=sample-app" })
@Import(TestSampleApplication.RedisContainerConfiguration.class)
@AutoConfigureWebTestClient
class FleetModeInContainerTests {

	@BeforeAll
	static void docker() {
		RedisContainers.assumeDocker();
	}

	@DynamicPropertySource
	static void properties(DynamicPropertyRegistry registry) {
		int simulator = TestPorts.free();
		registry.add("sample.simulator.port", () -> simulator);
		// Not the Redis the container is: the service connection wins over the URL.
		int nothing = TestPorts.free();
		registry.add("spring.data.redis.url", () -> "redis://127.0.0.1:" + nothing);
	}

	@Autowired
	private WebTestClient http;

	@Autowired
	private LlmResilience resilience;

	@Test
	void theSampleSharesStateThroughTheContainersRedis() {
		await().atMost(Duration.ofSeconds(30)).until(() -> this.resilience.fleet().connected());
		assertThat(this.resilience.fleet().namespace()).isEqualTo("sample-app");
		this.http.get()
			.uri("/actuator/health")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.status")
			.isEqualTo("UP")
			.jsonPath("$.components.llmResilience.details.fleet.status")
			.isEqualTo("connected");
		this.http.post()
			.uri("/v1/answers")
			.header("content-type", "application/json")
			.bodyValue("{\"question\": \"What does a circuit breaker do?\"}")
			.exchange()
			.expectStatus()
			.isOk();
	}

}
