package io.github.llmresilience.sample;

import java.util.Arrays;
import java.util.stream.Stream;

import io.github.llmresilience.test.RedisContainers;
import org.testcontainers.containers.GenericContainer;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.annotation.Bean;

/**
 * The sample in fleet mode, with Redis in a container (Boot's development-time
 * Testcontainers): {@code ./mvnw -pl sample-app -am spring-boot:test-run}. The image is
 * {@code llm-resilience.redis.image} or {@code LLM_RESILIENCE_REDIS_IMAGE},
 * {@code redis:7} by default; the plain {@code spring-boot:run} stays Docker-free.
 */
public final class TestSampleApplication {

	/** Fleet mode on, under the sample's own namespace. */
	static final String[] FLEET = { "--llm.resilience.fleet.enabled=true", "--spring.application.name=sample-app" };

	private TestSampleApplication() {
	}

	public static void main(String[] args) {
		SpringApplication.from(SampleApplication::main)
			.with(RedisContainerConfiguration.class)
			.run(Stream.concat(Arrays.stream(FLEET), Arrays.stream(args)).toArray(String[]::new));
	}

	/** Redis in a container, its connection handed to Spring Data Redis. */
	@TestConfiguration(proxyBeanMethods = false)
	static class RedisContainerConfiguration {

		@Bean
		@ServiceConnection(name = "redis")
		GenericContainer<?> redisContainer() {
			return RedisContainers.standalone();
		}

	}

}
