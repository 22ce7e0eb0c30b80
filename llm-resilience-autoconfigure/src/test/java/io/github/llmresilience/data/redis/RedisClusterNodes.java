package io.github.llmresilience.data.redis;

import java.util.List;

import org.springframework.data.redis.connection.RedisClusterConfiguration;

/**
 * A Redis Cluster of a test's own, in containers ({@link RedisClusterContainers}) or
 * processes ({@link RedisClusterProcesses}).
 */
interface RedisClusterNodes extends AutoCloseable {

	/** Every node's loopback port. */
	List<Integer> ports();

	/** A Spring Data configuration of every node. */
	RedisClusterConfiguration configuration();

	@Override
	void close();

}
