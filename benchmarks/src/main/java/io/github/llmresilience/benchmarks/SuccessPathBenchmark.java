package io.github.llmresilience.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.github.llmresilience.execute.BlockingTargetCall;
import io.github.llmresilience.execute.CallOptions;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.execute.TargetCall;
import io.github.llmresilience.metrics.LlmCallMetrics;
import io.github.llmresilience.overload.ClientThrottlingSettings;
import io.github.llmresilience.overload.ConcurrencySettings;
import io.github.llmresilience.target.Target;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.micrometer.tagged.TaggedCircuitBreakerMetrics;
import io.github.resilience4j.reactor.circuitbreaker.operator.CircuitBreakerOperator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The decision overhead of a successful call: the provider is replaced by a function that
 * returns a ready answer, so all that is measured is what wraps it. The state is shared
 * by every benchmark thread (one target, one breaker), so running it with more threads
 * shows contention on the hot path.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SuccessPathBenchmark {

	static final String ANSWER = "{\"choices\":[{\"message\":{\"content\":\"ok\"}}]}";

	private LlmResilience resilience;

	private LlmResilience onParallel;

	private LlmResilience withMicrometer;

	private LlmResilience withoutThrottling;

	private LlmResilience withConcurrency;

	private Supplier<String> bare;

	private Supplier<String> bareMicrometer;

	private CircuitBreaker bareReactive;

	// Fields, not lambdas in the benchmark methods: the callers of a real service hold
	// their call function too, and neither side should pay for a capture the other does
	// not.
	private final Supplier<String> provider = () -> ANSWER;

	private final BlockingTargetCall<String> blockingCall = (attempt) -> ANSWER;

	private final TargetCall<String> reactiveCall = (attempt) -> Mono.just(ANSWER);

	@Setup
	public void setUp() {
		this.resilience = LlmResilience.builder()
			.target(Target.of("primary", "openai"))
			.chain("chat", "primary")
			.observer(CountingObserver.create())
			.build();
		// The same on Reactor's parallel scheduler, the executor's timer before this
		// module measured it: kept so that every run shows what the coalescing timer
		// saves.
		this.onParallel = LlmResilience.builder()
			.target(Target.of("primary", "openai"))
			.chain("chat", "primary")
			.observer(CountingObserver.create())
			.scheduler(Schedulers.parallel())
			.build();
		// The same with the starter's Micrometer meters (LlmCallMetrics, as the
		// auto-configuration binds it) recording into an in-memory registry.
		this.withMicrometer = LlmResilience.builder()
			.target(Target.of("primary", "openai"))
			.chain("chat", "primary")
			.observer(new LlmCallMetrics(new SimpleMeterRegistry()))
			.build();
		// Overload control: without client-side throttling (on by default), and with
		// adaptive concurrency as well (off by default), to show what each costs.
		this.withoutThrottling = LlmResilience.builder()
			.target(Target.of("primary", "openai"))
			.chain("chat", "primary")
			.observer(CountingObserver.create())
			.clientThrottling(ClientThrottlingSettings.defaults().withEnabled(false))
			.build();
		this.withConcurrency = LlmResilience.builder()
			.target(Target.of("primary", "openai"))
			.chain("chat", "primary")
			.observer(CountingObserver.create())
			.concurrency(ConcurrencySettings.defaults().withEnabled(true))
			.build();
		// The baseline: the same supplier behind a default Resilience4j breaker.
		this.bare = CircuitBreaker.decorateSupplier(CircuitBreaker.ofDefaults("bare"), this.provider);
		this.bareReactive = CircuitBreaker.ofDefaults("bare-reactive");
		// The metered baseline: the same breaker with Resilience4j's own Micrometer
		// binding, which records a timer per call from the breaker's events, as a
		// Resilience4j application with metrics on has it.
		CircuitBreakerRegistry breakers = CircuitBreakerRegistry.ofDefaults();
		CircuitBreaker metered = breakers.circuitBreaker("bare-metered");
		TaggedCircuitBreakerMetrics.ofCircuitBreakerRegistry(breakers).bindTo(new SimpleMeterRegistry());
		this.bareMicrometer = CircuitBreaker.decorateSupplier(metered, this.provider);
	}

	@TearDown
	public void checkStillClosed() {
		// A benchmark of the success path that opened its breaker measured something
		// else.
		for (LlmResilience each : new LlmResilience[] { this.resilience, this.onParallel, this.withMicrometer,
				this.withoutThrottling, this.withConcurrency }) {
			if (!each.isUsable("primary")) {
				throw new IllegalStateException(
						"The breaker left the success path: " + each.state().target("primary").breaker());
			}
		}
	}

	/** Baseline: a default Resilience4j breaker around the supplier. */
	@Benchmark
	public String bareResilience4j() {
		return this.bare.get();
	}

	/**
	 * Metered baseline: the same breaker with resilience4j-micrometer's tagged metrics.
	 */
	@Benchmark
	public String bareResilience4jMicrometer() {
		return this.bareMicrometer.get();
	}

	/** A blocking call through a one-target chain. */
	@Benchmark
	public String llmResilienceCall() {
		return this.resilience.call("chat", this.blockingCall);
	}

	/**
	 * The same, with timeouts armed on {@code Schedulers.parallel()} (the former
	 * default).
	 */
	@Benchmark
	public String llmResilienceCallParallelScheduler() {
		return this.onParallel.call("chat", this.blockingCall);
	}

	/** The same call without client-side throttling. */
	@Benchmark
	public String llmResilienceCallWithoutThrottling() {
		return this.withoutThrottling.call("chat", this.blockingCall);
	}

	/** The same call with adaptive concurrency on as well. */
	@Benchmark
	public String llmResilienceCallWithConcurrency() {
		return this.withConcurrency.call("chat", this.blockingCall);
	}

	/** The same call with the starter's Micrometer meters recording each attempt. */
	@Benchmark
	public String llmResilienceCallMicrometer() {
		return this.withMicrometer.call("chat", this.blockingCall);
	}

	/** A blocking call against one target, without a chain. */
	@Benchmark
	public String llmResilienceCallOnTarget() {
		return this.resilience.callOnTarget("primary", CallOptions.NONE, this.blockingCall);
	}

	/**
	 * Reactive baseline: Resilience4j's Reactor operator around a ready Mono, blocked on.
	 */
	@Benchmark
	public String bareResilience4jReactive() {
		return Mono.just(ANSWER).transformDeferred(CircuitBreakerOperator.of(this.bareReactive)).block();
	}

	/** A reactive call through a one-target chain, blocked on. */
	@Benchmark
	public String llmResilienceExecute() {
		return this.resilience.execute("chat", this.reactiveCall).block();
	}

	/**
	 * The same, with timeouts armed on {@code Schedulers.parallel()} (the former
	 * default).
	 */
	@Benchmark
	public String llmResilienceExecuteParallelScheduler() {
		return this.onParallel.execute("chat", this.reactiveCall).block();
	}

}
