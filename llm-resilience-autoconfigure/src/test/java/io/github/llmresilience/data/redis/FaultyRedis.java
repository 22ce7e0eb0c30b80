package io.github.llmresilience.data.redis;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.model.ContainerNetwork;
import com.github.dockerjava.api.model.Network;
import io.github.llmresilience.test.RedisContainers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.jspecify.annotations.Nullable;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;

import static org.awaitility.Awaitility.await;

/**
 * A Redis container of one fault test, and the faults the engine can do to it. Each
 * server keeps nothing on disk, so one started again is empty. For a network cut the
 * container sits on a network of its own with a fixed address, which the pods reach
 * directly (and only it); for every other fault on the host's network.
 */
final class FaultyRedis implements AutoCloseable {

	/** What happens to Redis. */
	enum Fault {

		/** {@code docker pause}, then {@code unpause}: a frozen VM. */
		PAUSE("`docker pause`, then `unpause`") {
			@Override
			void inject(FaultyRedis redis) {
				redis.docker().pauseContainerCmd(redis.id()).exec();
			}

			@Override
			void heal(FaultyRedis redis) {
				redis.docker().unpauseContainerCmd(redis.id()).exec();
			}
		},

		/** {@code docker stop}, then {@code start}: a restart with its data gone. */
		STOP_START("`docker stop`, then `start` (data gone)") {
			@Override
			void inject(FaultyRedis redis) {
				redis.docker().stopContainerCmd(redis.id()).withTimeout(10).exec();
			}

			@Override
			void heal(FaultyRedis redis) {
				redis.docker().startContainerCmd(redis.id()).exec();
				redis.awaitAnswer();
			}
		},

		/** {@code docker kill}, then {@code start}: a crash. */
		KILL("`docker kill`, then `start` (data gone)") {
			@Override
			void inject(FaultyRedis redis) {
				redis.docker().killContainerCmd(redis.id()).exec();
			}

			@Override
			void heal(FaultyRedis redis) {
				redis.docker().startContainerCmd(redis.id()).exec();
				redis.awaitAnswer();
			}
		},

		/** The container's network disconnected, then connected again: a partition. */
		NETWORK("network disconnected, then connected") {
			@Override
			void inject(FaultyRedis redis) {
				redis.docker()
					.disconnectFromNetworkCmd()
					.withNetworkId(redis.network)
					.withContainerId(redis.id())
					.exec();
			}

			@Override
			void heal(FaultyRedis redis) {
				redis.connect();
			}
		},

		/**
		 * Its memory filled ({@code maxmemory} reached, {@code noeviction}): every write
		 * answered {@code OOM}; then room made again.
		 */
		MEMORY("memory full (`noeviction`), then room again") {
			@Override
			void inject(FaultyRedis redis) {
				redis.command("CONFIG", "SET", "maxmemory-policy", "noeviction");
				redis.command("DEBUG", "POPULATE", "50000", "filler", "200");
				String memory = redis.command("INFO", "memory");
				String used = memory.lines()
					.filter((line) -> line.startsWith("used_memory:"))
					.findFirst()
					.orElseThrow()
					.substring("used_memory:".length())
					.trim();
				// Just below what it uses: full, every write refused until room is made.
				redis.command("CONFIG", "SET", "maxmemory", Long.toString(Long.parseLong(used) - 256 * 1024));
			}

			@Override
			void heal(FaultyRedis redis) {
				redis.command("CONFIG", "SET", "maxmemory", "0");
			}
		};

		final String description;

		Fault(String description) {
			this.description = description;
		}

		abstract void inject(FaultyRedis redis);

		abstract void heal(FaultyRedis redis);

	}

	private final GenericContainer<?> container;

	private final String host;

	private final int port;

	private final @Nullable String network;

	private FaultyRedis(GenericContainer<?> container, String host, int port, @Nullable String network) {
		this.container = container;
		this.host = host;
		this.port = port;
		this.network = network;
	}

	/** A server for the fault (the test is skipped without Docker). */
	@SuppressWarnings("resource")
	static FaultyRedis start(Fault fault) {
		RedisContainers.assumeDocker();
		if (fault != Fault.NETWORK) {
			int port = RedisContainers.freePort();
			GenericContainer<?> container = RedisContainers.onHost(port, "--enable-debug-command", "yes");
			container.start();
			FaultyRedis redis = new FaultyRedis(container, "127.0.0.1", port, null);
			redis.awaitAnswer();
			return redis;
		}
		DockerClient docker = org.testcontainers.DockerClientFactory.instance().client();
		String network = null;
		String subnet = null;
		for (int attempt = 0; network == null; attempt++) {
			subnet = "10.251." + ThreadLocalRandom.current().nextInt(256) + ".";
			try {
				network = docker.createNetworkCmd()
					.withName("llm-resilience-" + Long.toHexString(System.nanoTime()))
					.withIpam(new Network.Ipam().withConfig(new Network.Ipam.Config().withSubnet(subnet + "0/24")))
					.exec()
					.getId();
			}
			catch (RuntimeException ex) {
				// That subnet is taken: another.
				if (attempt == 10) {
					throw ex;
				}
			}
		}
		GenericContainer<?> container = new GenericContainer<>(RedisContainers.image())
			.withCommand("redis-server", "--save", "", "--appendonly", "no", "--protected-mode", "no",
					"--enable-debug-command", "yes")
			.waitingFor(Wait.forLogMessage(".*Ready to accept connections.*\\n", 1)
				.withStartupTimeout(Duration.ofSeconds(60)));
		FaultyRedis redis = new FaultyRedis(container, subnet + "10", 6379, network);
		try {
			container.start();
			// Off the default bridge, onto the test's own network at a fixed address.
			docker.disconnectFromNetworkCmd()
				.withNetworkId("bridge")
				.withContainerId(container.getContainerId())
				.exec();
			redis.connect();
		}
		catch (RuntimeException ex) {
			redis.close();
			throw ex;
		}
		return redis;
	}

	String host() {
		return this.host;
	}

	int port() {
		return this.port;
	}

	private DockerClient docker() {
		return this.container.getDockerClient();
	}

	private String id() {
		return this.container.getContainerId();
	}

	private void connect() {
		docker().connectToNetworkCmd()
			.withNetworkId(this.network)
			.withContainerId(id())
			.withContainerNetwork(
					new ContainerNetwork().withIpamConfig(new ContainerNetwork.Ipam().withIpv4Address(this.host)))
			.exec();
		awaitAnswer();
	}

	private void awaitAnswer() {
		await().atMost(Duration.ofSeconds(30)).until(() -> {
			try {
				return "PONG".equals(command("PING"));
			}
			catch (RuntimeException ex) {
				return false;
			}
		});
	}

	/** One command, its answer as text. */
	String command(String... command) {
		// The timeout on the URI, not RedisClient.setDefaultTimeout: Lettuce 7 (Boot 4.1)
		// removed that method, and both Lettuce 6 and 7 read the URI's.
		RedisClient client = RedisClient.create(
				RedisURI.builder().withHost(this.host).withPort(this.port).withTimeout(Duration.ofSeconds(5)).build());
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			io.lettuce.core.protocol.CommandArgs<String, String> args = new io.lettuce.core.protocol.CommandArgs<>(
					io.lettuce.core.codec.StringCodec.UTF8);
			for (int i = 1; i < command.length; i++) {
				args.add(command[i]);
			}
			Object answer = connection.sync()
				.dispatch(io.lettuce.core.protocol.CommandType.valueOf(command[0]),
						new io.lettuce.core.output.StatusOutput<>(io.lettuce.core.codec.StringCodec.UTF8), args);
			return String.valueOf(answer);
		}
		finally {
			client.shutdown();
		}
	}

	@Override
	public void close() {
		try {
			docker().unpauseContainerCmd(id()).exec();
		}
		catch (RuntimeException ex) {
			// Not paused.
		}
		this.container.stop();
		if (this.network != null) {
			org.testcontainers.DockerClientFactory.instance().client().removeNetworkCmd(this.network).exec();
		}
	}

}
