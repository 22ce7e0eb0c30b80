package io.github.llmresilience.data.redis;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.llmresilience.test.LocalRedis;
import io.github.llmresilience.test.RedisContainers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

import org.springframework.data.redis.connection.RedisClusterConfiguration;

import static org.awaitility.Awaitility.await;

/**
 * A Redis Cluster of three masters of a test's own, on ephemeral loopback ports, made by
 * {@code redis-cli --cluster create}; nothing kept beyond the test.
 */
final class RedisClusterProcesses implements RedisClusterNodes {

	/**
	 * Containers with a replica for each primary wherever Docker answers (as in CI);
	 * three primaries as processes of the machine's {@code redis-server} otherwise.
	 */
	static RedisClusterNodes launchAny() throws IOException, InterruptedException {
		if (RedisContainers.dockerAvailable() || !LocalRedis.onPath("redis-server")) {
			return RedisClusterContainers.launch();
		}
		return launch();
	}

	final List<Integer> ports = new ArrayList<>();

	private final List<Process> processes = new ArrayList<>();

	private final Path dir;

	private RedisClusterProcesses() throws IOException {
		this.dir = Files.createTempDirectory("redis-cluster");
		for (int i = 0; i < 3; i++) {
			int port = freePort();
			this.ports.add(port);
			this.processes.add(new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind",
					"127.0.0.1", "--cluster-enabled", "yes", "--cluster-config-file", "nodes-" + port + ".conf",
					"--save", "", "--appendonly", "no", "--dir", this.dir.toString())
				.redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.DISCARD)
				.start());
		}
		for (int port : this.ports) {
			await().atMost(Duration.ofSeconds(10)).until(() -> "PONG".equals(command(port, "PING")));
		}
		List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
		this.ports.forEach((port) -> create.add("127.0.0.1:" + port));
		create.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
		Process process = new ProcessBuilder(create).redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.DISCARD)
			.start();
		try {
			process.waitFor(30, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		for (int port : this.ports) {
			await().atMost(Duration.ofSeconds(20))
				.until(() -> String.valueOf(command(port, "CLUSTER", "INFO")).contains("cluster_state:ok"));
		}
	}

	/** Three masters, or skip the test saying why. */
	static RedisClusterProcesses launch() throws IOException {
		LocalRedis.assumeOnPath("redis-server", "redis-cli");
		return new RedisClusterProcesses();
	}

	@Override
	public List<Integer> ports() {
		return this.ports;
	}

	@Override
	public RedisClusterConfiguration configuration() {
		return new RedisClusterConfiguration(this.ports.stream().map((port) -> "127.0.0.1:" + port).toList());
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	private static Object command(int port, String... command) {
		RedisClient client = RedisClient.create("redis://127.0.0.1:" + port);
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			io.lettuce.core.protocol.CommandArgs<String, String> args = new io.lettuce.core.protocol.CommandArgs<>(
					io.lettuce.core.codec.StringCodec.UTF8);
			for (int i = 1; i < command.length; i++) {
				args.add(command[i]);
			}
			io.lettuce.core.protocol.ProtocolKeyword keyword = io.lettuce.core.protocol.CommandType.valueOf(command[0]);
			return connection.sync()
				.dispatch(keyword, new io.lettuce.core.output.StatusOutput<>(io.lettuce.core.codec.StringCodec.UTF8),
						args);
		}
		catch (RuntimeException ex) {
			return null;
		}
		finally {
			client.shutdownAsync();
		}
	}

	@Override
	public void close() {
		this.processes.forEach(Process::destroyForcibly);
		for (Process process : this.processes) {
			try {
				process.waitFor(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		try (var files = Files.list(this.dir)) {
			files.forEach((file) -> file.toFile().delete());
			Files.deleteIfExists(this.dir);
		}
		catch (IOException ex) {
			// A temporary directory left behind is no failure.
		}
	}

}
