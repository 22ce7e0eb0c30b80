package io.github.llmresilience.test;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

import static org.assertj.core.api.Assertions.fail;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * Redis in containers through Testcontainers: the image is {@value #IMAGE_PROPERTY} (or
 * {@code LLM_RESILIENCE_REDIS_IMAGE}), {@code redis:7} by default, and {@code .ci/run}
 * sets it to the image {@code docker/redis/build.sh} builds from the machine's own Debian
 * binaries (no registry is needed). A test that finds no Docker engine is skipped saying
 * why, unless {@value #REQUIRED_PROPERTY} (or {@code LLM_RESILIENCE_DOCKER_REQUIRED}) is
 * {@code true}, as in CI, where it fails.
 */
public final class RedisContainers {

	/** The system property that names the Redis image. */
	public static final String IMAGE_PROPERTY = "llm-resilience.redis.image";

	/** The system property that turns a missing Docker engine into a failure. */
	public static final String REQUIRED_PROPERTY = "llm-resilience.docker.required";

	/** The image a developer with Docker Hub gets. */
	public static final String DEFAULT_IMAGE = "redis:7";

	private static final String READY = ".*Ready to accept connections.*\\n";

	private static volatile Boolean dockerAvailable;

	private RedisContainers() {
	}

	/** The Redis image the tests run, compatible with {@code redis}. */
	public static DockerImageName image() {
		String name = setting(IMAGE_PROPERTY, "LLM_RESILIENCE_REDIS_IMAGE");
		return DockerImageName.parse((name != null) ? name : DEFAULT_IMAGE).asCompatibleSubstituteFor("redis");
	}

	/**
	 * Skip the test unless Docker answers (fail instead when Docker is required).
	 */
	public static void assumeDocker() {
		if (dockerAvailable == null) {
			dockerAvailable = available();
		}
		if (!dockerAvailable && "true".equalsIgnoreCase(setting(REQUIRED_PROPERTY, "LLM_RESILIENCE_DOCKER_REQUIRED"))) {
			fail("No Docker engine answers, and %s is true (.ci/run starts one)", REQUIRED_PROPERTY);
		}
		assumeThat(dockerAvailable).as("a Docker engine for Testcontainers (.ci/run starts one; image %s)", image())
			.isTrue();
	}

	/** Whether Testcontainers finds a Docker engine. */
	public static boolean dockerAvailable() {
		if (dockerAvailable == null) {
			dockerAvailable = available();
		}
		return dockerAvailable;
	}

	private static boolean available() {
		try {
			return DockerClientFactory.instance().isDockerAvailable();
		}
		catch (RuntimeException | LinkageError ex) {
			return false;
		}
	}

	/**
	 * A Redis on a mapped port of the engine's bridge (a standalone server for
	 * {@code @ServiceConnection}); nothing kept on disk. Not started.
	 */
	@SuppressWarnings("resource")
	public static GenericContainer<?> standalone() {
		return new GenericContainer<>(image()).withExposedPorts(6379)
			.withCommand("redis-server", "--save", "", "--appendonly", "no", "--protected-mode", "no")
			.waitingFor(Wait.forLogMessage(READY, 1).withStartupTimeout(Duration.ofSeconds(60)));
	}

	/**
	 * A {@code redis-server} on the host's network, bound to 127.0.0.1 on a port of its
	 * own, so that what it announces (a Sentinel's primary, a Cluster's nodes) is a
	 * loopback address the test reaches; nothing kept on disk. Not started.
	 * @param port its port
	 * @param args more arguments of {@code redis-server}
	 */
	@SuppressWarnings("resource")
	public static GenericContainer<?> onHost(int port, String... args) {
		List<String> command = new ArrayList<>(List.of("redis-server", "--port", Integer.toString(port), "--bind",
				"127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "no"));
		command.addAll(List.of(args));
		return new GenericContainer<>(image()).withNetworkMode("host")
			.withCommand(command.toArray(String[]::new))
			.waitingFor(Wait.forLogMessage(READY, 1).withStartupTimeout(Duration.ofSeconds(60)));
	}

	/** A loopback port free at the moment. */
	public static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static String setting(String property, String variable) {
		String value = System.getProperty(property);
		if (value == null || value.isBlank()) {
			value = System.getenv(variable);
		}
		return (value == null || value.isBlank()) ? null : value;
	}

}
