package io.github.llmresilience.benchmarks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.llmresilience.execute.BlockingTargetCall;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.execute.LlmResilienceBuilder;
import io.github.llmresilience.fleet.FleetSettings;
import io.github.llmresilience.target.Target;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The success path with fleet mode on (a real Redis, {@code LLM_RESILIENCE_REDIS_URL} or
 * 127.0.0.1:6379, the default settings: a sync every second in the background) against
 * the same engine with fleet mode off, in one run. Nothing of the fleet may be on the
 * call path but the counting of outcomes for the next sync.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class FleetBenchmark {

	private final BlockingTargetCall<String> blockingCall = (attempt) -> SuccessPathBenchmark.ANSWER;

	private LlmResilience alone;

	private LlmResilience inFleet;

	private FleetRedis.Pod pod;

	@Setup
	public void setUp() {
		this.alone = builder().build();
		FleetRedis redis = FleetRedis.fromEnvironment();
		String namespace = FleetRedis.namespace("bench-success");
		// The start waits for the first sync up to the command timeout: 10 s, not the
		// default
		// 1 s, so that a busy machine's first connection (Lettuce's connect, the script's
		// load) is waited for. What is measured is a connected pod's call.
		FleetSettings defaults = FleetSettings.defaults(namespace);
		FleetSettings settings = new FleetSettings(namespace, defaults.syncInterval(), defaults.window(),
				defaults.probeInterval(), defaults.probeLease(), defaults.gateJitter(), Duration.ofSeconds(10));
		this.pod = redis.pod("pod-1", namespace, builder(), settings);
		this.inFleet = this.pod.resilience();
		if (!this.inFleet.fleet().connected()) {
			throw new IllegalStateException("Fleet mode did not connect to Redis at " + redis);
		}
	}

	private static LlmResilienceBuilder builder() {
		return LlmResilience.builder()
			.target(Target.of("primary", "openai"))
			.chain("chat", "primary")
			.observer(CountingObserver.create());
	}

	@TearDown
	public void checkStillClosed() {
		try {
			for (LlmResilience each : new LlmResilience[] { this.alone, this.inFleet }) {
				if (!each.isUsable("primary")) {
					throw new IllegalStateException(
							"The breaker left the success path: " + each.state().target("primary").breaker());
				}
			}
			if (!this.inFleet.fleet().connected()) {
				throw new IllegalStateException("The pod lost Redis during the run: " + this.inFleet.fleet());
			}
		}
		finally {
			this.pod.close();
		}
	}

	/** Baseline: a blocking call through a one-target chain, fleet mode off. */
	@Benchmark
	public String fleetOff() {
		return this.alone.call("chat", this.blockingCall);
	}

	/** The same call on an engine in fleet mode on Redis. */
	@Benchmark
	public String fleetOn() {
		return this.inFleet.call("chat", this.blockingCall);
	}

}
