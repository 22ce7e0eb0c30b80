package io.github.llmresilience.sample.drill;

import java.time.Duration;
import java.util.List;
import java.util.function.IntFunction;
import java.util.stream.Collectors;

import io.github.llmresilience.autoconfigure.LlmResilienceProperties;
import io.github.llmresilience.sample.simulator.LatencyDistribution;
import io.github.llmresilience.sample.simulator.SimulatorProperties;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.core.env.Environment;

/**
 * What the drills that run through the application's own engine (brownout, tail) read
 * from its configuration.
 */
final class DrillChains {

	private static final int WARM_UP_CALLS = 8;

	private static final int WARM_UP_CONCURRENCY = 4;

	private DrillChains() {
	}

	/**
	 * The chain's first two targets: the one the drill troubles and the one in another
	 * failure domain behind it.
	 * @throws IllegalStateException when the chain has fewer than two
	 */
	static List<String> primaryAndSecondary(LlmResilienceProperties properties, String chain, String drill) {
		List<String> targets = properties.getChains().get(chain);
		if (targets == null || targets.size() < 2) {
			throw new IllegalStateException("The " + drill + " drill needs sample.answers.chain ('" + chain
					+ "') to fail over from one target to another; it is " + targets);
		}
		return List.copyOf(targets);
	}

	/**
	 * Calls made before the drill, with the simulator normal, and forgotten: a service
	 * was running before its provider browned out, and a cold process's first calls
	 * (classes loaded, code compiled) would count as the provider's latency.
	 * @param call the n-th warm-up call; its failure is ignored
	 */
	static void warmUp(IntFunction<Mono<?>> call) {
		Flux.range(0, WARM_UP_CALLS)
			.flatMap((n) -> call.apply(n).onErrorResume((ex) -> Mono.empty()), WARM_UP_CONCURRENCY)
			.then()
			.block(Duration.ofMinutes(2));
	}

	/** The simulator's mean latency in seconds, with its latency scale. */
	static double meanLatencySeconds(SimulatorProperties simulator) {
		if (!(simulator.getLatencyScale() > 0)) {
			throw new IllegalStateException(
					"The drill needs sample.simulator.latency-scale above 0 to turn calls in flight into a rate");
		}
		return LatencyDistribution.REAL_CALLS.mean().toNanos() / 1e9 * simulator.getLatencyScale();
	}

	/**
	 * The properties as the application has them, for the report: {@code name=value}, or
	 * {@code name unset} (the library's default).
	 */
	static String settings(Environment environment, List<String> names) {
		return names.stream().map((name) -> {
			String value = environment.getProperty(name);
			return (value != null) ? name + "=" + value : name + " unset";
		}).collect(Collectors.joining(", "));
	}

}
