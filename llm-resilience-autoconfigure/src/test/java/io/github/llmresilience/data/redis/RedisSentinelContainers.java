package io.github.llmresilience.data.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.llmresilience.test.RedisContainers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.builder.Transferable;

import static org.awaitility.Awaitility.await;

/**
 * A Redis Sentinel deployment of a test's own in containers on the host's network: a
 * primary, a replica and three sentinels (quorum 2) watching {@value #MASTER}, each bound
 * to 127.0.0.1 on a port of its own, so that the sentinels announce loopback addresses.
 * The primary is judged down after 1 s.
 */
final class RedisSentinelContainers implements AutoCloseable {

	static final String MASTER = "mymaster";

	final int primaryPort = RedisContainers.freePort();

	final int replicaPort = RedisContainers.freePort();

	final List<Integer> sentinelPorts = new ArrayList<>();

	private final GenericContainer<?> primary;

	private final GenericContainer<?> replica;

	private final List<GenericContainer<?>> sentinels = new ArrayList<>();

	@SuppressWarnings("resource")
	private RedisSentinelContainers() {
		this.primary = RedisContainers.onHost(this.primaryPort);
		this.replica = RedisContainers.onHost(this.replicaPort, "--replicaof", "127.0.0.1",
				Integer.toString(this.primaryPort));
		try {
			this.primary.start();
			this.replica.start();
			await().atMost(Duration.ofSeconds(30))
				.until(() -> info(this.primaryPort, "replication").contains("connected_slaves:1"));
			for (int i = 0; i < 3; i++) {
				int port = RedisContainers.freePort();
				this.sentinelPorts.add(port);
				String conf = String.join("\n", "port " + port, "bind 127.0.0.1", "protected-mode no",
						"sentinel monitor " + MASTER + " 127.0.0.1 " + this.primaryPort + " 2",
						"sentinel down-after-milliseconds " + MASTER + " 1000",
						"sentinel failover-timeout " + MASTER + " 5000", "sentinel parallel-syncs " + MASTER + " 1",
						"");
				GenericContainer<?> sentinel = new GenericContainer<>(RedisContainers.image()).withNetworkMode("host")
					// The sentinel rewrites its configuration: a file it may write.
					.withCopyToContainer(Transferable.of(conf, 0666), "/data/sentinel.conf")
					.withCommand("redis-server", "/data/sentinel.conf", "--sentinel")
					.waitingFor(Wait.forLogMessage(".*\\+monitor master.*\\n", 1)
						.withStartupTimeout(Duration.ofSeconds(60)));
				this.sentinels.add(sentinel);
				sentinel.start();
			}
			// Every sentinel knows the replica (a failover needs one) and the others.
			await().atMost(Duration.ofSeconds(60))
				.until(() -> this.sentinelPorts.stream().allMatch((port) -> knowsReplicaAndPeers(port)));
		}
		catch (RuntimeException ex) {
			close();
			throw ex;
		}
	}

	/** A new deployment, or skip the test saying why. */
	static RedisSentinelContainers launch() {
		RedisContainers.assumeDocker();
		return new RedisSentinelContainers();
	}

	/** Boot's {@code spring.data.redis.sentinel.nodes}. */
	String nodes() {
		return String.join(",", this.sentinelPorts.stream().map((port) -> "127.0.0.1:" + port).toList());
	}

	/** {@code docker kill} the primary, as a crashed host would lose it. */
	void killPrimary() {
		this.primary.getDockerClient().killContainerCmd(this.primary.getContainerId()).exec();
	}

	/** The port of the server the sentinels name as the primary now. */
	int primaryNow() {
		RedisClient client = RedisClient
			.create("redis-sentinel://127.0.0.1:" + this.sentinelPorts.get(0) + "#" + MASTER);
		try (StatefulRedisSentinelConnection<String, String> connection = client.connectSentinel()) {
			return ((java.net.InetSocketAddress) connection.sync().getMasterAddrByName(MASTER)).getPort();
		}
		finally {
			client.shutdown();
		}
	}

	/** Whether the server on that port is a primary (after a promotion, say). */
	boolean isPrimary(int port) {
		return info(port, "replication").contains("role:master");
	}

	private boolean knowsReplicaAndPeers(int port) {
		RedisClient client = RedisClient.create("redis-sentinel://127.0.0.1:" + port + "#" + MASTER);
		try (StatefulRedisSentinelConnection<String, String> connection = client.connectSentinel()) {
			java.util.Map<String, String> master = connection.sync().master(MASTER);
			return "1".equals(master.get("num-slaves")) && "2".equals(master.get("num-other-sentinels"));
		}
		catch (RuntimeException ex) {
			return false;
		}
		finally {
			client.shutdown();
		}
	}

	static String info(int port, String section) {
		RedisClient client = RedisClient.create("redis://127.0.0.1:" + port);
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			return connection.sync().info(section);
		}
		catch (RuntimeException ex) {
			return "";
		}
		finally {
			client.shutdown();
		}
	}

	@Override
	public void close() {
		this.sentinels.forEach(GenericContainer::stop);
		this.replica.stop();
		this.primary.stop();
	}

}
