package io.github.llmresilience.data.redis;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.execute.LlmResilienceBuilder;
import io.github.llmresilience.extract.ErrorExtractors;
import io.github.llmresilience.fleet.FleetSettings;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.LocalRedis;
import io.github.llmresilience.web.RestClientErrorExtractor;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/**
 * Pods of one fleet in one JVM: each an {@link LlmResilience} with its own Redis
 * connection, on the targets {@code primary} and {@code secondary} of a real HTTP
 * provider, in the chain {@code chat}.
 */
final class FleetPods implements AutoCloseable {

	/** One Lettuce event loop for every pod: 40 of their own would be 40 thread pools. */
	private static final ClientResources RESOURCES = DefaultClientResources.create();

	final FakeProvider provider = new FakeProvider();

	final String namespace;

	final List<StateChange> events = new CopyOnWriteArrayList<>();

	final Map<String, Pod> pods = new ConcurrentHashMap<>();

	private final String host;

	private final int port;

	/**
	 * The configuration of each pod's connection: standalone on host and port by default.
	 */
	private final Supplier<RedisConfiguration> redis;

	private final RestClient restClient = RestClient.builder()
		.requestFactory(new JdkClientHttpRequestFactory())
		.build();

	FleetPods(String host, int port) {
		this(host, port, () -> new RedisStandaloneConfiguration(host, port));
	}

	/**
	 * @param host a node to clean up through
	 * @param port its port
	 * @param redis each pod's connection configuration (a Cluster's, say)
	 */
	FleetPods(String host, int port, Supplier<RedisConfiguration> redis) {
		this(host, port, redis, "test-" + UUID.randomUUID().toString().substring(0, 8));
	}

	/**
	 * @param namespace the fleet's namespace (an ACL names it)
	 */
	FleetPods(String host, int port, Supplier<RedisConfiguration> redis, String namespace) {
		this.host = host;
		this.port = port;
		this.redis = redis;
		this.namespace = namespace;
	}

	/** The Redis that {@code .ci/run} starts, or skip the test saying why. */
	static FleetPods onCiRedis() {
		URI uri = LocalRedis.ciRedis();
		return new FleetPods(uri.getHost(), LocalRedis.port(uri));
	}

	/** A pod: its engine and its own connection. */
	record Pod(String id, LlmResilience resilience,
			@Nullable LettuceConnectionFactory connection) implements AutoCloseable {

		@Override
		public void close() {
			this.resilience.close();
			if (this.connection != null) {
				this.connection.destroy();
			}
		}

	}

	Pod start(String id, Clock clock, FleetSettings settings, BreakerSettings breaker) {
		return start(id, clock, settings, breaker, (builder) -> {
		});
	}

	Pod start(String id, Clock clock, FleetSettings settings, BreakerSettings breaker,
			Consumer<LlmResilienceBuilder> customizer) {
		return start(id, clock, settings, breaker, customizer, this.redis.get());
	}

	/** A pod on a connection of its own configuration (through a proxy, say). */
	Pod start(String id, Clock clock, FleetSettings settings, BreakerSettings breaker,
			Consumer<LlmResilienceBuilder> customizer, RedisConfiguration redis) {
		LettuceConnectionFactory connection = connection(redis);
		LlmResilienceBuilder builder = builder(id, clock, breaker);
		builder.fleet(new RedisFleetStore(new ReactiveStringRedisTemplate(connection), this.namespace), settings)
			.fleetPod(id);
		customizer.accept(builder);
		Pod pod = new Pod(id, builder.build(), connection);
		this.pods.put(id, pod);
		return pod;
	}

	/** A pod without fleet mode, deciding alone. */
	Pod startAlone(String id, Clock clock, BreakerSettings breaker, Consumer<LlmResilienceBuilder> customizer) {
		LlmResilienceBuilder builder = builder(id, clock, breaker);
		customizer.accept(builder);
		Pod pod = new Pod(id, builder.build(), null);
		this.pods.put(id, pod);
		return pod;
	}

	private LlmResilienceBuilder builder(String id, Clock clock, BreakerSettings breaker) {
		return LlmResilience.builder()
			.clock(clock)
			.breaker(breaker)
			.target(target("primary"))
			.target(target("secondary"))
			.chain("chat", "primary", "secondary")
			.extractors(ErrorExtractors.standard().with(List.of(new RestClientErrorExtractor())))
			.listener((change) -> this.events.add(change));
	}

	LettuceConnectionFactory connection(FleetSettings settings) {
		return connection(this.redis.get());
	}

	LettuceConnectionFactory connection(RedisConfiguration configuration) {
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.clientResources(RESOURCES)
			.commandTimeout(Duration.ofSeconds(5))
			.build();
		LettuceConnectionFactory connection = (configuration instanceof RedisClusterConfiguration cluster)
				? new LettuceConnectionFactory(cluster, client)
				: new LettuceConnectionFactory((RedisStandaloneConfiguration) configuration, client);
		connection.afterPropertiesSet();
		connection.start();
		return connection;
	}

	Target target(String name) {
		return new Target(name, "openai", "acct-" + name, "gpt-4o", "region-" + name,
				URI.create(this.provider.baseUrl(name)), null);
	}

	/** One call through the chain, as an application writes it with RestClient. */
	String call(Pod pod) {
		return call(pod, "chat");
	}

	/** One call through a chain. */
	String call(Pod pod, String chain) {
		return pod.resilience()
			.call(chain,
					(attempt) -> this.restClient.post()
						.uri(attempt.target().baseUrl() + "/v1/chat/completions")
						.body("{}")
						.retrieve()
						.body(String.class));
	}

	List<Pod> all() {
		return new ArrayList<>(this.pods.values());
	}

	/** Stop every pod, keeping the provider and the fleet's keys: a rolling restart. */
	void stopAll() {
		this.pods.values().forEach(Pod::close);
		this.pods.clear();
	}

	@Override
	public void close() {
		stopAll();
		this.provider.close();
		if (LocalRedis.reachable(this.host, this.port)) {
			LettuceConnectionFactory connection = connection(FleetSettings.defaults(this.namespace));
			try {
				ReactiveStringRedisTemplate redis = new ReactiveStringRedisTemplate(connection);
				redis.keys("llm-resilience:{" + this.namespace + "}:*")
					.flatMap(redis::delete)
					.blockLast(Duration.ofSeconds(5));
			}
			catch (RuntimeException ex) {
				// A server of the test's own (stopped, or under an ACL) is thrown away
				// whole.
			}
			finally {
				connection.destroy();
			}
		}
	}

}
