package io.github.llmresilience.sample.drill;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.ScanOptions;

/**
 * The fleet drills' Redis: Boot's connection factory (made from
 * {@code spring.data.redis.*}; the sample sets its URL from
 * {@code LLM_RESILIENCE_REDIS_URL}), checked once; a connection of its own for each pod,
 * as the pods of a real fleet have; and a drill's keys removed at its end.
 */
final class FleetRedis {

	private FleetRedis() {
	}

	/**
	 * Boot's connection factory, once it answered a {@code PING}.
	 * @param boot Boot's factory, or {@code null} when Spring Data Redis made none
	 * @param option the drill's option that asked for Redis, for the message
	 * @throws IllegalStateException when there is none or it does not answer
	 */
	static LettuceConnectionFactory checked(@Nullable LettuceConnectionFactory boot, String option) {
		if (boot == null) {
			throw new IllegalStateException(option + " needs Redis: set spring.data.redis.* (Lettuce)");
		}
		try {
			String pong = new ReactiveStringRedisTemplate(boot).getConnectionFactory()
				.getReactiveConnection()
				.ping()
				.block(Duration.ofSeconds(5));
			if (!"PONG".equalsIgnoreCase(pong)) {
				throw new IllegalStateException("Redis answered PING with " + pong);
			}
		}
		catch (RuntimeException ex) {
			// The host and port only: a URL may carry a password.
			throw new IllegalStateException(
					option + " needs Redis, and none answered at " + boot.getStandaloneConfiguration().getHostName()
							+ ":" + boot.getStandaloneConfiguration().getPort()
							+ " (spring.data.redis.* or LLM_RESILIENCE_REDIS_URL); use --fleet=off to run without it");
		}
		return boot;
	}

	/**
	 * A pod's own connection, on Boot's settings and its one set of Lettuce event loops.
	 */
	static LettuceConnectionFactory podConnection(LettuceConnectionFactory boot) {
		RedisConfiguration configuration = boot.isClusterAware() ? boot.getClusterConfiguration()
				: boot.isRedisSentinelAware() ? boot.getSentinelConfiguration() : boot.getStandaloneConfiguration();
		LettuceConnectionFactory connection = new LettuceConnectionFactory(configuration,
				boot.getClientConfiguration());
		connection.afterPropertiesSet();
		connection.start();
		return connection;
	}

	/** Remove every key of a drill's fleet namespace; best effort. */
	static void removeKeys(LettuceConnectionFactory boot, String namespace) {
		ReactiveStringRedisTemplate redis = new ReactiveStringRedisTemplate(boot);
		redis.scan(ScanOptions.scanOptions().match("llm-resilience:{" + namespace + "}:*").build())
			.flatMap(redis::delete)
			.then()
			.onErrorComplete()
			.block(Duration.ofSeconds(5));
	}

}
