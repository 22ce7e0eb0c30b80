package io.github.llmresilience.sample.drill;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.github.llmresilience.autoconfigure.LlmResilienceProperties;
import io.github.llmresilience.classify.ProviderClassifiers;
import io.github.llmresilience.data.redis.RedisFleetStore;
import io.github.llmresilience.data.redis.RedisLeaseStore;
import io.github.llmresilience.execute.CallOptions;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.execute.LlmResilienceBuilder;
import io.github.llmresilience.execute.LlmUnavailableException;
import io.github.llmresilience.extract.ErrorExtractors;
import io.github.llmresilience.fleet.FleetSettings;
import io.github.llmresilience.pool.LeaseSettings;
import io.github.llmresilience.pool.PartitionSettings;
import io.github.llmresilience.pool.PoolSettings;
import io.github.llmresilience.pool.PoolState;
import io.github.llmresilience.sample.drill.PoolsFleetDrillPlan.Sharing;
import io.github.llmresilience.sample.provider.ProviderClient;
import io.github.llmresilience.sample.simulator.SimulatedProviders;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.stereotype.Component;

/**
 * Runs the fleet pools drill: {@link PoolsFleetDrillPlan#pods() pods} in this process,
 * each its own {@link LlmResilience} with pools on, on the application's primary target
 * alone (and, in fleet mode, its own Redis connection from {@code spring.data.redis.*}),
 * the load skewed onto a few busy pods, against the simulator's primary limited to one
 * scope's requests a minute.
 */
@Component
@ConditionalOnBooleanProperty(name = "sample.simulator.enabled", matchIfMissing = true)
public class PoolsFleetDrill {

	private static final String TARGET = PoolsDrill.TARGET;

	private static final String CHAIN = "pools-fleet-drill";

	/** The longest the drill waits for every pod to count the whole fleet. */
	private static final Duration FLEET_FORMED = Duration.ofSeconds(30);

	private final SimulatedProviders simulator;

	private final ProviderClient client;

	private final LlmResilienceProperties properties;

	private final ProviderClassifiers classifiers;

	private final ErrorExtractors extractors;

	private final ObjectProvider<LettuceConnectionFactory> redis;

	private final Clock clock;

	public PoolsFleetDrill(SimulatedProviders simulator, ProviderClient client, LlmResilienceProperties properties,
			ProviderClassifiers classifiers, ErrorExtractors extractors, ObjectProvider<LettuceConnectionFactory> redis,
			Clock clock) {
		this.simulator = simulator;
		this.client = client;
		this.properties = properties;
		this.classifiers = classifiers;
		this.extractors = extractors;
		this.redis = redis;
		this.clock = clock;
	}

	/** Run the drill to its end and report; blocks for about its duration. */
	public PoolsFleetDrillReport run(PoolsFleetDrillPlan plan) {
		this.simulator.reset();
		this.simulator.rateLimit(TARGET, plan.simulatorLimit());
		String namespace = "sample-pools-fleet-" + UUID.randomUUID().toString().substring(0, 8);
		LettuceConnectionFactory boot = (plan.sharing() != Sharing.PER_POD)
				? FleetRedis.checked(this.redis.getIfAvailable(), "--fleet=" + plan.sharing().option()) : null;
		List<Pod> pods = new ArrayList<>();
		try {
			for (int i = 0; i < plan.pods(); i++) {
				pods.add(startPod(i, plan, namespace, boot));
			}
			// A first call on every pod, as any service makes before a job starts: each
			// learns the scope's capacity from its answer's headers.
			Flux.fromIterable(pods)
				.flatMap((pod) -> call(pod, CallOptions.NONE, "Warm-up question from " + pod.id()))
				.then()
				.block(Duration.ofMinutes(1));
			if (boot != null) {
				awaitFleet(plan, pods);
			}
			return drive(plan, pods);
		}
		finally {
			// Every engine first (which gives its leases back), then the connections.
			pods.forEach((pod) -> pod.resilience().close());
			pods.forEach(Pod::closeConnection);
			if (boot != null) {
				FleetRedis.removeKeys(boot, namespace);
			}
			this.simulator.reset();
		}
	}

	private PoolsFleetDrillReport drive(PoolsFleetDrillPlan plan, List<Pod> pods) {
		long acceptedBefore = accepted();
		long refusedBefore = refused();
		long start = System.nanoTime();
		AtomicLong interactiveServed = new AtomicLong();
		AtomicLong rateLimited = new AtomicLong();
		AtomicLong failed = new AtomicLong();
		AtomicReference<Duration> longest = new AtomicReference<>(Duration.ZERO);
		AtomicLong backgroundServed = new AtomicLong();
		AtomicLong busyServed = new AtomicLong();
		AtomicLong idleServed = new AtomicLong();
		List<Disposable> jobs = new ArrayList<>();
		List<Mono<Void>> interactive = new ArrayList<>();
		CallOptions job = CallOptions.pool(PoolSettings.BACKGROUND);
		for (int i = 0; i < pods.size(); i++) {
			Pod pod = pods.get(i);
			AtomicLong served = plan.busy(i) ? busyServed : idleServed;
			int background = plan.part(i, plan.backgroundCalls());
			jobs.add(Flux.range(1, background)
				.flatMap((n) -> call(pod, job, "Background job item " + n + " on " + pod.id() + ": summarise this.")
					.doOnNext((answer) -> {
						backgroundServed.incrementAndGet();
						served.incrementAndGet();
					})
					.onErrorResume((ex) -> Mono.empty()), Math.max(1, background))
				.subscribe());
			int calls = plan.part(i, plan.interactiveCalls());
			if (calls == 0) {
				continue;
			}
			// Evenly spaced over the duration, the first half a period in.
			Duration period = plan.duration().dividedBy(calls);
			interactive
				.add(Flux.interval(period.dividedBy(2), period, Schedulers.parallel()).take(calls).flatMap((tick) -> {
					long sent = System.nanoTime();
					return call(pod, plan.interactiveOptions(),
							"Interactive question " + (tick + 1) + " on " + pod.id() + ": where is my order?")
						.doOnNext((answer) -> {
							interactiveServed.incrementAndGet();
							served.incrementAndGet();
						})
						.onErrorResume(LlmUnavailableException.class, (ex) -> {
							(ex.allThrottled() ? rateLimited : failed).incrementAndGet();
							return Mono.empty();
						})
						.onErrorResume((ex) -> {
							failed.incrementAndGet();
							return Mono.empty();
						})
						.doFinally((signal) -> longest.accumulateAndGet(Duration.ofNanos(System.nanoTime() - sent),
								(a, b) -> (a.compareTo(b) >= 0) ? a : b));
				}, calls + 1).then());
		}
		// The jobs run while the interactive load does; what they have not done by then
		// is cancelled (not served), so every run is measured over the same window.
		try {
			Mono.when(interactive).block();
		}
		finally {
			jobs.forEach(Disposable::dispose);
		}
		long elapsed = System.nanoTime() - start;
		// The simulator's bucket was full when the load started (the warm-up calls took
		// one a pod, refilled while the fleet formed: counting it full errs against the
		// drill), and refills its minute continuously.
		long limit = plan.simulatorLimit();
		long allowed = limit + Math.round(limit * elapsed / 60e9);
		return new PoolsFleetDrillReport(plan, accepted() - acceptedBefore, allowed, refused() - refusedBefore,
				interactiveServed.get(), rateLimited.get(), failed.get(), longest.get(), backgroundServed.get(),
				busyServed.get(), idleServed.get());
	}

	/** Wait until every pod counts the whole fleet in its pools (a sync or two). */
	private void awaitFleet(PoolsFleetDrillPlan plan, List<Pod> pods) {
		long deadline = System.nanoTime() + FLEET_FORMED.toNanos();
		while (!pods.stream().allMatch((pod) -> countsFleet(pod, plan.pods()))) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("The " + plan.pods() + " pods did not all count one another within "
						+ FLEET_FORMED.toSeconds() + " s (is Redis slow?)");
			}
			Mono.delay(Duration.ofMillis(20)).block();
		}
	}

	private static boolean countsFleet(Pod pod, int pods) {
		PoolState state = pod.resilience().pools();
		return !state.scopes().isEmpty() && state.scopes().values().stream().allMatch((scope) -> scope.pods() == pods);
	}

	private Mono<String> call(Pod pod, CallOptions options, String question) {
		return pod.resilience().execute(CHAIN, options, (attempt) -> this.client.answer(attempt, question));
	}

	private long accepted() {
		return this.simulator.stats().target(TARGET).statuses().getOrDefault(200, 0L);
	}

	private long refused() {
		return this.simulator.stats().target(TARGET).statuses().getOrDefault(429, 0L);
	}

	private Pod startPod(int index, PoolsFleetDrillPlan plan, String namespace,
			@Nullable LettuceConnectionFactory boot) {
		String id = "pod-" + (index + 1);
		LlmResilienceBuilder builder = LlmResilience.builder()
			.clock(this.clock)
			.retry(PoolsDrill.retry(this.properties))
			.breaker(PoolsDrill.BREAKER)
			.classifiers(this.classifiers)
			.extractors(this.extractors)
			.pools(PartitionSettings.defaults().on())
			.target(PoolsDrill.primary(this.properties))
			.chain(CHAIN, List.of(TARGET));
		LettuceConnectionFactory connection = null;
		if (boot != null) {
			connection = FleetRedis.podConnection(boot);
			ReactiveStringRedisTemplate redis = new ReactiveStringRedisTemplate(connection);
			Duration sync = plan.syncInterval();
			// The default window of 30 syncs, at least its 1 s floor.
			Duration window = sync.multipliedBy(30).compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1)
					: sync.multipliedBy(30);
			builder
				.fleet(new RedisFleetStore(redis, namespace),
						new FleetSettings(namespace, sync, window, null, Duration.ofMinutes(1), Duration.ofMillis(250),
								Duration.ofSeconds(1)))
				.fleetPod(id);
			if (plan.sharing() == Sharing.LEASES) {
				Duration period = plan.leasePeriod();
				Duration exchangeTimeout = (period.compareTo(Duration.ofSeconds(2)) >= 0) ? Duration.ofSeconds(1)
						: period.dividedBy(2);
				builder.poolLeases(new RedisLeaseStore(redis, namespace),
						new LeaseSettings(true, period, exchangeTimeout));
			}
		}
		return new Pod(id, builder.build(), connection);
	}

	/** A pod: its engine and, in fleet mode, its own Redis connection. */
	private record Pod(String id, LlmResilience resilience, @Nullable LettuceConnectionFactory connection) {

		void closeConnection() {
			if (this.connection != null) {
				this.connection.destroy();
			}
		}

	}

}
