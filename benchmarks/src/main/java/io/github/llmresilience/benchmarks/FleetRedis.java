package io.github.llmresilience.benchmarks;

import java.net.URI;
import java.time.Duration;
import java.util.UUID;

import io.github.llmresilience.data.redis.RedisFleetStore;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.execute.LlmResilienceBuilder;
import io.github.llmresilience.fleet.FleetSettings;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.ScanOptions;

/**
 * A Redis for fleet-mode benchmarks, and pods on it: each pod an engine with a connection
 * of its own, all on one set of Lettuce event loops (as pods of one JVM would be in a
 * test; in production each pod is its own JVM).
 */
final class FleetRedis {

	private static final ClientResources RESOURCES = DefaultClientResources.create();

	private final String host;

	private final int port;

	FleetRedis(String host, int port) {
		this.host = host;
		this.port = port;
	}

	/** {@code LLM_RESILIENCE_REDIS_URL}, else 127.0.0.1:6379. */
	static FleetRedis fromEnvironment() {
		URI uri = URI.create(System.getenv().getOrDefault("LLM_RESILIENCE_REDIS_URL", "redis://127.0.0.1:6379"));
		return new FleetRedis(uri.getHost(), (uri.getPort() > 0) ? uri.getPort() : 6379);
	}

	static String namespace(String prefix) {
		return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
	}

	int port() {
		return this.port;
	}

	LettuceConnectionFactory connect() {
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.clientResources(RESOURCES)
			.commandTimeout(Duration.ofSeconds(5))
			.build();
		LettuceConnectionFactory connection = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(this.host, this.port), client);
		connection.afterPropertiesSet();
		connection.start();
		return connection;
	}

	/** A pod in fleet mode: the builder's engine with its own connection. */
	Pod pod(String id, String namespace, LlmResilienceBuilder builder, FleetSettings settings) {
		LettuceConnectionFactory connection = connect();
		LlmResilience resilience = builder
			.fleet(new RedisFleetStore(new ReactiveStringRedisTemplate(connection), namespace), settings)
			.fleetPod(id)
			.build();
		return new Pod(resilience, connection, namespace);
	}

	@Override
	public String toString() {
		return this.host + ":" + this.port;
	}

	/**
	 * One pod; closing it stops its sync, removes its namespace's keys and its
	 * connection.
	 */
	record Pod(LlmResilience resilience, LettuceConnectionFactory connection, String namespace) {

		void close() {
			this.resilience.close();
			try {
				ReactiveStringRedisTemplate redis = new ReactiveStringRedisTemplate(this.connection);
				redis.scan(ScanOptions.scanOptions().match("llm-resilience:{" + this.namespace + "}:*").build())
					.flatMap(redis::delete)
					.then()
					.onErrorComplete()
					.block(Duration.ofSeconds(5));
			}
			finally {
				this.connection.destroy();
			}
		}

	}

}
