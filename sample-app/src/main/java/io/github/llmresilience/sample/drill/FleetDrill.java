package io.github.llmresilience.sample.drill;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.github.llmresilience.autoconfigure.LlmResilienceProperties;
import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.classify.ProviderClassifiers;
import io.github.llmresilience.data.redis.RedisFleetStore;
import io.github.llmresilience.execute.CallOptions;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.execute.LlmResilienceBuilder;
import io.github.llmresilience.execute.LlmUnavailableException;
import io.github.llmresilience.extract.ErrorExtractors;
import io.github.llmresilience.fleet.FleetSettings;
import io.github.llmresilience.retry.RetrySettings;
import io.github.llmresilience.sample.answers.AnswersProperties;
import io.github.llmresilience.sample.provider.ProviderClient;
import io.github.llmresilience.sample.simulator.Mode;
import io.github.llmresilience.sample.simulator.ModeSetting;
import io.github.llmresilience.sample.simulator.SimulatedProviders;
import io.github.llmresilience.target.Secret;
import io.github.llmresilience.target.Target;
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
 * Runs the fleet drill: {@link FleetDrillPlan#pods() pods} in this process, each its own
 * {@link LlmResilience} on the application's targets and chain (and, in fleet mode, its
 * own Redis connection from {@code spring.data.redis.*}), calling the simulator at a
 * steady pace while primary is in outage and after it recovers.
 */
@Component
@ConditionalOnBooleanProperty(name = "sample.simulator.enabled", matchIfMissing = true)
public class FleetDrill {

	private static final String TARGET = "primary";

	private static final Duration POLL = Duration.ofMillis(20);

	private final SimulatedProviders simulator;

	private final ProviderClient client;

	private final LlmResilienceProperties properties;

	private final AnswersProperties answers;

	private final ProviderClassifiers classifiers;

	private final ErrorExtractors extractors;

	private final ObjectProvider<LettuceConnectionFactory> redis;

	private final Clock clock;

	public FleetDrill(SimulatedProviders simulator, ProviderClient client, LlmResilienceProperties properties,
			AnswersProperties answers, ProviderClassifiers classifiers, ErrorExtractors extractors,
			ObjectProvider<LettuceConnectionFactory> redis, Clock clock) {
		this.simulator = simulator;
		this.client = client;
		this.properties = properties;
		this.answers = answers;
		this.classifiers = classifiers;
		this.extractors = extractors;
		this.redis = redis;
		this.clock = clock;
	}

	/**
	 * Run the drill to its end and report; blocks for about its lead-in, outage and
	 * recovery.
	 */
	public FleetDrillReport run(FleetDrillPlan plan) {
		this.simulator.reset();
		String chain = this.answers.getChain();
		List<String> chainTargets = this.properties.getChains().get(chain);
		if (chainTargets == null || chainTargets.size() < 2 || !chainTargets.get(0).equals(TARGET)) {
			throw new IllegalStateException("The fleet drill needs sample.answers.chain ('" + chain
					+ "') to start with primary and fail over to another target; it is " + chainTargets);
		}
		String namespace = "sample-fleet-drill-" + UUID.randomUUID().toString().substring(0, 8);
		FleetSettings settings = new FleetSettings(namespace, plan.syncInterval(), plan.window(), plan.probeInterval(),
				Duration.ofMinutes(1), Duration.ofMillis(250), Duration.ofSeconds(1));
		Queue<StateChange> opened = new ConcurrentLinkedQueue<>();
		Queue<StateChange> halfOpen = new ConcurrentLinkedQueue<>();
		List<Pod> pods = new ArrayList<>();
		LettuceConnectionFactory boot = plan.fleet() ? FleetRedis.checked(this.redis.getIfAvailable(), "--fleet=on")
				: null;
		try {
			for (int i = 1; i <= plan.pods(); i++) {
				pods.add(startPod("pod-" + i, plan, chain, chainTargets, settings, boot, opened, halfOpen));
			}
			return drive(plan, chain, pods, opened, halfOpen);
		}
		finally {
			// Every engine first, then the connections: no sync runs on a closed one.
			pods.forEach((pod) -> pod.resilience().close());
			pods.forEach(Pod::closeConnection);
			if (boot != null) {
				FleetRedis.removeKeys(boot, namespace);
			}
		}
	}

	private FleetDrillReport drive(FleetDrillPlan plan, String chain, List<Pod> pods, Queue<StateChange> opened,
			Queue<StateChange> halfOpen) {
		String domain = pods.get(0).resilience().state().target(TARGET).breaker().domain();
		AtomicLong calls = new AtomicLong();
		AtomicLong servedBySecondary = new AtomicLong();
		AtomicLong unavailable = new AtomicLong();
		AtomicLong failed = new AtomicLong();
		AtomicReference<@Nullable Instant> recoveredAt = new AtomicReference<>();
		AtomicReference<@Nullable Instant> firstServedAfter = new AtomicReference<>();
		Duration period = plan.callPeriod();
		List<Disposable> load = new ArrayList<>();
		for (Pod pod : pods) {
			// Each pod starts at a random point of its period, as a fleet's traffic
			// arrives.
			Duration offset = Duration.ofNanos(ThreadLocalRandom.current().nextLong(period.toNanos()));
			load.add(Flux.interval(offset, period, Schedulers.parallel())
				.flatMap((tick) -> call(pod, chain, tick).doOnNext((servedBy) -> {
					calls.incrementAndGet();
					Instant recovered = recoveredAt.get();
					if (servedBy.equals(TARGET)) {
						Instant now = this.clock.instant();
						if (recovered != null && !now.isBefore(recovered)) {
							firstServedAfter.compareAndSet(null, now);
						}
					}
					else {
						servedBySecondary.incrementAndGet();
					}
				}).onErrorResume(LlmUnavailableException.class, (ex) -> {
					calls.incrementAndGet();
					unavailable.incrementAndGet();
					return Mono.empty();
				}).onErrorResume((ex) -> {
					calls.incrementAndGet();
					failed.incrementAndGet();
					return Mono.empty();
				}))
				.subscribe());
		}
		try {
			pause(plan.leadIn());
			opened.clear();
			halfOpen.clear();
			Instant outageStart = this.clock.instant();
			this.simulator.mode(TARGET, ModeSetting.of(Mode.OUTAGE), plan.outage());
			Instant recovered = this.simulator.target(TARGET).mode(outageStart).until();
			recoveredAt.set((recovered != null) ? recovered : outageStart.plus(plan.outage()));
			pause(plan.outage());
			long deadline = System.nanoTime() + plan.afterRecovery().toNanos();
			while (firstServedAfter.get() == null && System.nanoTime() < deadline) {
				pause(POLL);
			}
			Instant end = recoveredAt.get();
			StateChange firstOpen = opened.stream()
				.filter((change) -> change.subject().equals(domain))
				.filter((change) -> change.at().isBefore(end))
				.findFirst()
				.orElse(null);
			// Every trial of the domain: during the outage, and the one that found the
			// provider back.
			long trials = halfOpen.stream().filter((change) -> change.subject().equals(domain)).count();
			long openings = opened.stream()
				.filter((change) -> change.subject().equals(domain))
				.filter((change) -> change.at().isBefore(end))
				.count();
			Instant served = firstServedAfter.get();
			return new FleetDrillReport(plan, chain, this.properties.getChains().get(chain),
					this.simulator.stats().target(TARGET).mode(Mode.OUTAGE).requests(),
					(firstOpen != null) ? Duration.between(outageStart, firstOpen.at()) : null, openings, trials,
					(served != null) ? Duration.between(end, served) : null, calls.get(), servedBySecondary.get(),
					unavailable.get(), failed.get());
		}
		finally {
			load.forEach(Disposable::dispose);
		}
	}

	/** One call through the chain: the name of the target that answered. */
	private Mono<String> call(Pod pod, String chain, long tick) {
		String question = "Question " + (tick + 1) + " from " + pod.id() + ": summarise yesterday's support tickets.";
		return pod.resilience()
			.execute(chain, CallOptions.deadline(this.answers.getDeadline()),
					(attempt) -> this.client.answer(attempt.target(), question, attempt.idempotencyKey())
						.map((text) -> attempt.target().name()));
	}

	private Pod startPod(String id, FleetDrillPlan plan, String chain, List<String> chainTargets,
			FleetSettings settings, @Nullable LettuceConnectionFactory boot, Queue<StateChange> opened,
			Queue<StateChange> halfOpen) {
		LlmResilienceProperties.Retry retry = this.properties.getRetry();
		LlmResilienceBuilder builder = LlmResilience.builder()
			.clock(this.clock)
			.breaker(plan.breaker())
			.retry(new RetrySettings(retry.getMaxAttempts(), retry.getBackoffBase(), retry.getBackoffMax(),
					retry.getBudgetRatio(), retry.getBudgetWindow(), retry.getBudgetMinimum()))
			.classifiers(this.classifiers)
			.extractors(this.extractors)
			.chain(chain, chainTargets)
			.listener((change) -> {
				if (change.kind() == StateChange.Kind.BREAKER_OPENED) {
					opened.add(change);
				}
				else if (change.kind() == StateChange.Kind.BREAKER_HALF_OPEN) {
					halfOpen.add(change);
				}
			});
		this.properties.getTargets()
			.forEach((name, target) -> builder.target(new Target(name, target.getProvider(), target.getAccount(),
					target.getModel(), target.getRegion(), target.getBaseUrl(), Secret.of(target.getApiKey()))));
		LettuceConnectionFactory connection = null;
		if (boot != null) {
			connection = FleetRedis.podConnection(boot);
			builder
				.fleet(new RedisFleetStore(new ReactiveStringRedisTemplate(connection), settings.namespace()), settings)
				.fleetPod(id);
		}
		return new Pod(id, builder.build(), connection);
	}

	private static void pause(Duration duration) {
		Mono.delay(duration).block();
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
