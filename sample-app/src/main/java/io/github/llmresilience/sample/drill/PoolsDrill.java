package io.github.llmresilience.sample.drill;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.github.llmresilience.autoconfigure.LlmResilienceProperties;
import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.classify.ProviderClassifiers;
import io.github.llmresilience.execute.CallOptions;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.execute.LlmUnavailableException;
import io.github.llmresilience.extract.ErrorExtractors;
import io.github.llmresilience.pool.PartitionSettings;
import io.github.llmresilience.pool.PoolSettings;
import io.github.llmresilience.pool.PoolState;
import io.github.llmresilience.retry.RetrySettings;
import io.github.llmresilience.sample.provider.ProviderClient;
import io.github.llmresilience.sample.simulator.SimulatedProviders;
import io.github.llmresilience.target.Secret;
import io.github.llmresilience.target.Target;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.stereotype.Component;

/**
 * Runs the pools drill: its own {@link LlmResilience} on the application's primary target
 * alone (a chain of one, so that nothing fails over), pools on or off, calling the
 * simulator with primary's requests a minute limited.
 */
@Component
@ConditionalOnBooleanProperty(name = "sample.simulator.enabled", matchIfMissing = true)
public class PoolsDrill {

	static final String TARGET = "primary";

	private static final String CHAIN = "pools-drill";

	/**
	 * The pools drills' breaker: they measure rate limits, not latency, so a slow answer
	 * (the simulator's recorded latencies, on a loaded machine) must not open it.
	 */
	static final BreakerSettings BREAKER = new BreakerSettings(20, 10, 50, Duration.ofMinutes(5), 100,
			Duration.ofSeconds(30), Duration.ofMinutes(15), 1);

	private final SimulatedProviders simulator;

	private final ProviderClient client;

	private final LlmResilienceProperties properties;

	private final ProviderClassifiers classifiers;

	private final ErrorExtractors extractors;

	private final Clock clock;

	public PoolsDrill(SimulatedProviders simulator, ProviderClient client, LlmResilienceProperties properties,
			ProviderClassifiers classifiers, ErrorExtractors extractors, Clock clock) {
		this.simulator = simulator;
		this.client = client;
		this.properties = properties;
		this.classifiers = classifiers;
		this.extractors = extractors;
		this.clock = clock;
	}

	/** Run the drill to its end and report; blocks for about its duration and the job. */
	public PoolsDrillReport run(PoolsDrillPlan plan) {
		this.simulator.reset();
		this.simulator.rateLimit(TARGET, plan.simulatorLimit());
		try {
			LlmResilience resilience = engine(plan);
			long warmUp = System.nanoTime();
			// A first call, as any service makes before a job starts: with pools on, the
			// engine learns the scope's capacity from its answer's headers.
			call(resilience, CallOptions.NONE, "Warm-up question").block(Duration.ofMinutes(1));
			String capacity = learned(resilience);
			long refusedBefore = refused();
			return drive(plan, resilience, capacity, refusedBefore, warmUp);
		}
		finally {
			this.simulator.reset();
		}
	}

	private PoolsDrillReport drive(PoolsDrillPlan plan, LlmResilience resilience, @Nullable String capacity,
			long refusedBefore, long warmUp) {
		long start = System.nanoTime();
		AtomicLong backgroundServed = new AtomicLong();
		AtomicLong backgroundEnd = new AtomicLong(start);
		CallOptions job = CallOptions.pool(PoolSettings.BACKGROUND);
		Mono<Void> background = Flux.range(1, plan.backgroundCalls())
			.flatMap(
					(n) -> call(resilience, job, "Background job item " + n + ": summarise this document.")
						.doOnNext((answer) -> backgroundServed.incrementAndGet())
						.onErrorResume((ex) -> Mono.empty())
						.doFinally((signal) -> backgroundEnd.accumulateAndGet(System.nanoTime(), Math::max)),
					Math.max(1, plan.backgroundCalls()))
			.then();
		AtomicLong served = new AtomicLong();
		AtomicLong rateLimited = new AtomicLong();
		AtomicLong failed = new AtomicLong();
		AtomicReference<Duration> longest = new AtomicReference<>(Duration.ZERO);
		Mono<Void> interactive = Flux.interval(Duration.ZERO, plan.interactivePeriod(), Schedulers.parallel())
			.take(plan.interactiveCalls())
			.flatMap((tick) -> {
				long sent = System.nanoTime();
				return call(resilience, plan.interactiveOptions(),
						"Interactive question " + (tick + 1) + ": where is my order?")
					.doOnNext((answer) -> served.incrementAndGet())
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
			}, plan.interactiveCalls() + 1)
			.then();
		// The job runs while the interactive load does; what it has not done by then is
		// cancelled (not served), so both runs are measured over the same window.
		Disposable running = background.subscribe();
		try {
			interactive.block();
		}
		finally {
			running.dispose();
		}
		long window = System.nanoTime() - start;
		long backgroundTime = Math.min(backgroundEnd.get() - start, window);
		// The simulator's bucket starts full and refills its minute continuously.
		long limit = plan.simulatorLimit();
		long allowed = limit + Math.round(limit * (System.nanoTime() - warmUp) / 60e9);
		return new PoolsDrillReport(plan, capacity, served.get(), rateLimited.get(), failed.get(), longest.get(),
				backgroundServed.get(), Duration.ofNanos(backgroundTime), refused() - refusedBefore, accepted(),
				allowed);
	}

	private Mono<String> call(LlmResilience resilience, CallOptions options, String question) {
		return resilience.execute(CHAIN, options, (attempt) -> this.client.answer(attempt, question));
	}

	private long accepted() {
		return this.simulator.stats().target(TARGET).statuses().getOrDefault(200, 0L);
	}

	private long refused() {
		return this.simulator.stats().target(TARGET).statuses().getOrDefault(429, 0L);
	}

	private static @Nullable String learned(LlmResilience resilience) {
		PoolState state = resilience.pools();
		return state.scopes()
			.values()
			.stream()
			.findFirst()
			.map((scope) -> scope.capacity().requestsPerMinute() + " requests a minute")
			.orElse(null);
	}

	private LlmResilience engine(PoolsDrillPlan plan) {
		return LlmResilience.builder()
			.clock(this.clock)
			.retry(retry(this.properties))
			.breaker(BREAKER)
			.classifiers(this.classifiers)
			.extractors(this.extractors)
			.pools(plan.pools() ? PartitionSettings.defaults().on() : PartitionSettings.defaults())
			.target(primary(this.properties))
			.chain(CHAIN, List.of(TARGET))
			.build();
	}

	/** The application's retry settings. */
	static RetrySettings retry(LlmResilienceProperties properties) {
		LlmResilienceProperties.Retry retry = properties.getRetry();
		return new RetrySettings(retry.getMaxAttempts(), retry.getBackoffBase(), retry.getBackoffMax(),
				retry.getBudgetRatio(), retry.getBudgetWindow(), retry.getBudgetMinimum());
	}

	/** The application's target primary, which the pools drills call alone. */
	static Target primary(LlmResilienceProperties properties) {
		LlmResilienceProperties.TargetProperties target = properties.getTargets().get(TARGET);
		if (target == null) {
			throw new IllegalStateException(
					"The pools drills need the target '" + TARGET + "' in llm.resilience.targets");
		}
		return new Target(TARGET, target.getProvider(), target.getAccount(), target.getModel(), target.getRegion(),
				target.getBaseUrl(), Secret.of(target.getApiKey()));
	}

}
