package io.github.llmresilience.data.redis;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.llmresilience.test.LocalRedis;
import io.github.llmresilience.test.RedisContainers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import org.jspecify.annotations.Nullable;
import org.testcontainers.containers.GenericContainer;

import static org.awaitility.Awaitility.await;

/**
 * A {@code redis-server} of a fault test's own, on an ephemeral loopback port, to kill,
 * restart, pause and slow; nothing kept on disk. A container on the host's network
 * (Testcontainers, {@link RedisContainers#image()}) wherever Docker answers, as in CI; a
 * process of the machine's {@code redis-server} for a developer without Docker.
 */
final class RedisProcess implements AutoCloseable {

	final int port;

	private @Nullable Process process;

	private final @Nullable GenericContainer<?> container;

	private RedisProcess(int port, @Nullable GenericContainer<?> container) {
		this.port = port;
		this.container = container;
		start();
	}

	/** A new server, or skip the test saying why. */
	static RedisProcess launch() {
		int port;
		try (ServerSocket socket = new ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		if (RedisContainers.dockerAvailable() || !LocalRedis.onPath("redis-server")) {
			RedisContainers.assumeDocker();
			return new RedisProcess(port, RedisContainers.onHost(port, "--enable-debug-command", "yes"));
		}
		return new RedisProcess(port, null);
	}

	/** Whether it runs in a container. */
	boolean inContainer() {
		return this.container != null;
	}

	/** Start it (again) on its port, empty. */
	void start() {
		if (this.container != null) {
			if (this.container.getContainerId() == null) {
				this.container.start();
			}
			else {
				// The same container again: --save "" left nothing behind.
				this.container.getDockerClient().startContainerCmd(this.container.getContainerId()).exec();
			}
			await().atMost(Duration.ofSeconds(30)).until(this::answers);
			return;
		}
		try {
			this.process = new ProcessBuilder("redis-server", "--port", Integer.toString(this.port), "--bind",
					"127.0.0.1", "--save", "", "--appendonly", "no", "--enable-debug-command", "yes")
				.redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.DISCARD)
				.start();
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		Process started = this.process;
		await().atMost(Duration.ofSeconds(10)).until(() -> started.isAlive() && answers());
	}

	private boolean answers() {
		RedisClient client = RedisClient.create("redis://127.0.0.1:" + this.port);
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			return "PONG".equals(connection.sync().ping());
		}
		catch (RuntimeException ex) {
			return false;
		}
		finally {
			client.shutdownAsync();
		}
	}

	/** Kill it at once, as a crash would ({@code docker kill}). */
	void kill() {
		if (this.container != null) {
			this.container.getDockerClient().killContainerCmd(this.container.getContainerId()).exec();
			await().atMost(Duration.ofSeconds(30)).until(() -> !answers());
			return;
		}
		if (this.process == null) {
			return;
		}
		this.process.destroyForcibly();
		try {
			this.process.waitFor(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * {@code SIGSTOP} ({@code docker pause}): the server stalls as a frozen VM or a long
	 * GC would; connections stay open and what clients send waits in the socket, to run
	 * on {@link #resume()}.
	 */
	void stop() {
		if (this.container != null) {
			this.container.getDockerClient().pauseContainerCmd(this.container.getContainerId()).exec();
			return;
		}
		signal("-STOP");
	}

	/**
	 * {@code SIGCONT} ({@code docker unpause}): a {@linkplain #stop() stopped} server
	 * runs again.
	 */
	void resume() {
		if (this.container != null) {
			this.container.getDockerClient().unpauseContainerCmd(this.container.getContainerId()).exec();
			return;
		}
		signal("-CONT");
	}

	private void signal(String signal) {
		if (this.process == null) {
			throw new IllegalStateException("not started");
		}
		try {
			Process kill = new ProcessBuilder("kill", signal, Long.toString(this.process.pid())).start();
			if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException("kill " + signal + " failed");
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** {@code FLUSHALL}: every key gone, the server up. */
	void flushAll() {
		admin((redis) -> redis.sync().flushall());
	}

	/** Run one command as the default user, such as {@code ACL SETUSER}. */
	void admin(java.util.function.Consumer<StatefulRedisConnection<String, String>> command) {
		RedisClient client = RedisClient.create("redis://127.0.0.1:" + this.port);
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			command.accept(connection);
		}
		finally {
			client.shutdownAsync();
		}
	}

	/** {@code CLIENT PAUSE}: every client's commands wait. */
	void pause(Duration duration) {
		admin((redis) -> redis.sync().clientPause(duration.toMillis()));
	}

	/** {@code DEBUG SLEEP}: the server stops answering anyone for a while. */
	void sleep(Duration duration) {
		// DEBUG SLEEP blocks its own caller too: sent and not waited for.
		admin((redis) -> redis.async()
			.dispatch(io.lettuce.core.protocol.CommandType.DEBUG,
					new io.lettuce.core.output.StatusOutput<>(StringCodec.UTF8),
					new io.lettuce.core.protocol.CommandArgs<>(StringCodec.UTF8).add("SLEEP")
						.add(duration.toSeconds())));
	}

	@Override
	public void close() {
		if (this.container != null) {
			try {
				resume();
			}
			catch (RuntimeException ex) {
				// Not paused.
			}
			this.container.stop();
			return;
		}
		// A stopped server does not die of SIGKILL until it runs again on some kernels.
		try {
			resume();
		}
		catch (RuntimeException ex) {
			// Already gone.
		}
		kill();
	}

}
