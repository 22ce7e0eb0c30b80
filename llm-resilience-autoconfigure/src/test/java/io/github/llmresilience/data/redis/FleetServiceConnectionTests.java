package io.github.llmresilience.data.redis;

import java.time.Duration;

import io.github.llmresilience.actuate.LlmResilienceHealthIndicator;
import io.github.llmresilience.autoconfigure.LlmResilienceAutoConfiguration;
import io.github.llmresilience.autoconfigure.LlmResilienceFleetAutoConfiguration;
import io.github.llmresilience.autoconfigure.LlmResilienceHealthContributorAutoConfiguration;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.test.RedisContainers;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.boot.testcontainers.service.connection.ServiceConnectionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Fleet mode on a standalone Redis container that {@code @ServiceConnection} hands to
 * Boot (no {@code spring.data.redis.*} at all): the pod connects through it, and while
 * the container is paused its health stays {@code UP} with {@code fleet: disconnected},
 * connected again once it runs.
 */
@SpringBootTest(classes = FleetServiceConnectionTests.Pod.class, webEnvironment = SpringBootTest.WebEnvironment.NONE,
		properties = { "llm.resilience.fleet.enabled=true", "llm.resilience.fleet.namespace=service-connection",
				"llm.resilience.fleet.sync-interval=100ms", "llm.resilience.fleet.window=5s",
				"llm.resilience.fleet.command-timeout=300ms", "llm.resilience.targets.primary.provider=openai",
				"llm.resilience.targets.primary.model=gpt-4o", "llm.resilience.chains.chat[0]=primary" })
class FleetServiceConnectionTests {

	@BeforeAll
	static void docker() {
		RedisContainers.assumeDocker();
	}

	@Autowired
	private LlmResilience resilience;

	@Autowired
	private LlmResilienceHealthIndicator health;

	@Autowired
	private GenericContainer<?> redis;

	@Test
	void aPodOnTheServiceConnectionStaysUpWhileItsRedisIsPaused() {
		await().atMost(Duration.ofSeconds(30)).until(() -> this.resilience.fleet().connected());
		assertThat(fleetStatus()).isEqualTo("status=connected");
		this.redis.getDockerClient().pauseContainerCmd(this.redis.getContainerId()).exec();
		try {
			await().atMost(Duration.ofSeconds(30)).until(() -> !this.resilience.fleet().connected());
			Health health = this.health.health();
			assertThat(health.getStatus().getCode()).isEqualTo("UP");
			assertThat(fleetStatus()).isEqualTo("status=disconnected");
		}
		finally {
			this.redis.getDockerClient().unpauseContainerCmd(this.redis.getContainerId()).exec();
		}
		await().atMost(Duration.ofSeconds(30)).until(() -> this.resilience.fleet().connected());
	}

	private String fleetStatus() {
		String fleet = String.valueOf(this.health.health().getDetails().get("fleet"));
		return fleet.substring(1, fleet.indexOf(','));
	}

	/** A pod: Spring Data Redis and llm-resilience, Redis from the container. */
	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ ServiceConnectionAutoConfiguration.class, DataRedisAutoConfiguration.class,
			DataRedisReactiveAutoConfiguration.class, LlmResilienceFleetAutoConfiguration.class,
			LlmResilienceAutoConfiguration.class, LlmResilienceHealthContributorAutoConfiguration.class })
	static class Pod {

		@Bean
		@ServiceConnection(name = "redis")
		GenericContainer<?> redis() {
			return RedisContainers.standalone();
		}

	}

}
