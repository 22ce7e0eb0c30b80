package io.github.llmresilience.benchmarks;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.timelimiter.TimeLimiter;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What a user who does not use llm-resilience would hand-assemble around one call:
 * Resilience4j's {@code Retry}, {@code CircuitBreaker}, {@code RateLimiter} and
 * {@code TimeLimiter}, each in its default configuration, in the order Resilience4j's own
 * Spring aspects apply them
 * ({@code Retry(CircuitBreaker(RateLimiter(TimeLimiter(call))))}). The provider is the
 * same ready answer as in {@link SuccessPathBenchmark}.
 *
 * <p>
 * A {@code TimeLimiter} limits a {@code Future}: to limit a blocking call, the call has
 * to run on another thread ({@link #resilience4jComposedOnExecutor()}). The variant that
 * hands it an already completed future ({@link #resilience4jComposedCompletedFuture()})
 * limits nothing, and is the decorators' own cost: a lower bound.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class Resilience4jCompositionBenchmark {

	private final Supplier<String> provider = () -> SuccessPathBenchmark.ANSWER;

	private ExecutorService executor;

	private Callable<String> onExecutor;

	private Callable<String> completedFuture;

	@Setup
	public void setUp() {
		this.executor = Executors.newFixedThreadPool(Runtime.getRuntime().availableProcessors());
		this.onExecutor = compose("on-executor", () -> this.executor.submit(this.provider::get));
		this.completedFuture = compose("completed-future",
				() -> CompletableFuture.completedFuture(this.provider.get()));
	}

	private static Callable<String> compose(String name, Supplier<? extends java.util.concurrent.Future<String>> call) {
		Callable<String> timed = TimeLimiter.decorateFutureSupplier(TimeLimiter.ofDefaults(name), call);
		Callable<String> limited = RateLimiter.decorateCallable(RateLimiter.ofDefaults(name), timed);
		Callable<String> guarded = CircuitBreaker.decorateCallable(CircuitBreaker.ofDefaults(name), limited);
		return Retry.decorateCallable(Retry.ofDefaults(name), guarded);
	}

	@TearDown
	public void tearDown() {
		this.executor.shutdownNow();
	}

	/**
	 * The composition that does limit a blocking call's time: the call runs on a pool
	 * thread, the caller waits for it.
	 */
	@Benchmark
	public String resilience4jComposedOnExecutor() throws Exception {
		return this.onExecutor.call();
	}

	/** The decorators alone: the call runs first and hands over a completed future. */
	@Benchmark
	public String resilience4jComposedCompletedFuture() throws Exception {
		return this.completedFuture.call();
	}

}
