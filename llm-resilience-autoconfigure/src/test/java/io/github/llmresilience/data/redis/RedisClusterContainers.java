package io.github.llmresilience.data.redis;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.llmresilience.test.RedisContainers;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import org.testcontainers.containers.Container.ExecResult;
import org.testcontainers.containers.GenericContainer;

import org.springframework.data.redis.connection.RedisClusterConfiguration;

import static org.awaitility.Awaitility.await;

/**
 * A Redis Cluster of a test's own in containers on the host's network: three primaries
 * with a replica each, every node bound to 127.0.0.1 on a port of its own (so the cluster
 * announces loopback addresses), made by {@code redis-cli --cluster create}. A node is
 * judged failed after 1 s ({@code cluster-node-timeout}).
 */
final class RedisClusterContainers implements RedisClusterNodes {

	final List<Integer> ports = new ArrayList<>();

	private final List<GenericContainer<?>> nodes = new ArrayList<>();

	private RedisClusterContainers() throws IOException, InterruptedException {
		try {
			for (int i = 0; i < 6; i++) {
				int port = RedisContainers.freePort();
				this.ports.add(port);
				// A failed node is noticed after 2 s (short for a test, long enough that
				// a
				// busy machine's pauses fail no one); a replica takes over however long
				// it
				// was out of touch (validity factor 0).
				GenericContainer<?> node = RedisContainers.onHost(port, "--cluster-enabled", "yes",
						"--cluster-config-file", "nodes-" + port + ".conf", "--cluster-node-timeout", "2000",
						"--cluster-replica-validity-factor", "0");
				this.nodes.add(node);
				node.start();
			}
			List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
			this.ports.forEach((port) -> create.add("127.0.0.1:" + port));
			create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
			ExecResult result = this.nodes.get(0).execInContainer(create.toArray(String[]::new));
			if (result.getExitCode() != 0) {
				throw new IllegalStateException(
						"redis-cli --cluster create: " + result.getStdout() + result.getStderr());
			}
			await().atMost(Duration.ofSeconds(60)).until(this::settled);
		}
		catch (RuntimeException | IOException | InterruptedException ex) {
			close();
			throw ex;
		}
	}

	/** Six nodes, or skip the test saying why. */
	static RedisClusterContainers launch() throws IOException, InterruptedException {
		RedisContainers.assumeDocker();
		return new RedisClusterContainers();
	}

	/** A Spring Data configuration of every node. */
	@Override
	public RedisClusterConfiguration configuration() {
		return new RedisClusterConfiguration(this.ports.stream().map((port) -> "127.0.0.1:" + port).toList());
	}

	/** Boot's {@code spring.data.redis.cluster.nodes}. */
	String nodes() {
		return String.join(",", this.ports.stream().map((port) -> "127.0.0.1:" + port).toList());
	}

	/** The port of the primary that serves the key's slot now, -1 when none answers. */
	int primaryOf(String key) {
		RedisClusterClient client = client();
		try {
			client.refreshPartitions();
			return client.getPartitions().getPartitionBySlot(SlotHash.getSlot(key)).getUri().getPort();
		}
		catch (RuntimeException ex) {
			return -1;
		}
		finally {
			client.shutdown();
		}
	}

	/** A client that may start from any node (one may be stopped). */
	private RedisClusterClient client() {
		return RedisClusterClient
			.create(this.ports.stream().map((port) -> RedisURI.create("127.0.0.1", port)).toList());
	}

	/** {@code docker stop} the node on that port. */
	void stop(int port) {
		this.nodes.get(this.ports.indexOf(port)).stop();
	}

	/**
	 * Whether every slot is served and each primary has its replica, as every node sees
	 * it.
	 */
	boolean settled() {
		for (int port : this.ports) {
			if (!clusterInfo(port).contains("cluster_state:ok")) {
				return false;
			}
		}
		RedisClusterClient client = client();
		try {
			client.refreshPartitions();
			long replicas = client.getPartitions()
				.stream()
				.filter((node) -> node.is(RedisClusterNode.NodeFlag.REPLICA) && node.isConnected())
				.count();
			return replicas == 3;
		}
		catch (RuntimeException ex) {
			return false;
		}
		finally {
			client.shutdown();
		}
	}

	/** Whether every node that runs says the cluster is whole. */
	boolean ok(List<Integer> running) {
		return running.stream().allMatch((port) -> clusterInfo(port).contains("cluster_state:ok"));
	}

	/** {@code CLUSTER NODES} as each running node sees it, for a failure's message. */
	String describe(List<Integer> running) {
		StringBuilder nodes = new StringBuilder();
		for (int port : running) {
			io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create("redis://127.0.0.1:" + port);
			try (var connection = client.connect()) {
				nodes.append("node ").append(port).append(":\n").append(connection.sync().clusterNodes());
			}
			catch (RuntimeException ex) {
				nodes.append("node ").append(port).append(": ").append(ex).append('\n');
			}
			finally {
				client.shutdown();
			}
		}
		return nodes.toString();
	}

	private static String clusterInfo(int port) {
		io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create("redis://127.0.0.1:" + port);
		try (var connection = client.connect()) {
			return connection.sync().clusterInfo();
		}
		catch (RuntimeException ex) {
			return "";
		}
		finally {
			client.shutdown();
		}
	}

	@Override
	public List<Integer> ports() {
		return this.ports;
	}

	@Override
	public void close() {
		this.nodes.forEach(GenericContainer::stop);
	}

}
