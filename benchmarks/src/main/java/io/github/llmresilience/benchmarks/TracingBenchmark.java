package io.github.llmresilience.benchmarks;

import java.util.concurrent.TimeUnit;

import io.github.llmresilience.execute.BlockingTargetCall;
import io.github.llmresilience.execute.CallTracing;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.observation.LlmObservations;
import io.github.llmresilience.target.Target;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * What traces cost a successful call, in one run: no tracing (an application without an
 * {@code ObservationRegistry} bean: the baseline), a registry that is Micrometer's no-op
 * one, and a registry with a handler (two Observations per call: the call's and its
 * attempt's, started, tagged and stopped; the handler itself does nothing, so what is
 * measured is this library's part, not a tracer's).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class TracingBenchmark {

	private final BlockingTargetCall<String> blockingCall = (attempt) -> SuccessPathBenchmark.ANSWER;

	private LlmResilience untraced;

	private LlmResilience noopRegistry;

	private LlmResilience observed;

	@Setup
	public void setUp() {
		this.untraced = engine(CallTracing.NONE);
		this.noopRegistry = engine(new LlmObservations(ObservationRegistry.NOOP));
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler(new ObservationHandler<>() {
			@Override
			public boolean supportsContext(Observation.Context context) {
				return true;
			}
		});
		this.observed = engine(new LlmObservations(registry));
	}

	private static LlmResilience engine(CallTracing tracing) {
		return LlmResilience.builder()
			.target(Target.of("primary", "openai"))
			.chain("chat", "primary")
			.observer(CountingObserver.create())
			.tracing(tracing)
			.build();
	}

	/** Baseline: a blocking call through a one-target chain, no tracing. */
	@Benchmark
	public String untraced() {
		return this.untraced.call("chat", this.blockingCall);
	}

	/** The same with Micrometer's no-op registry: the call has no trace. */
	@Benchmark
	public String noopRegistry() {
		return this.noopRegistry.call("chat", this.blockingCall);
	}

	/** The same with a registry and a handler: a call and an attempt observation. */
	@Benchmark
	public String observed() {
		return this.observed.call("chat", this.blockingCall);
	}

}
