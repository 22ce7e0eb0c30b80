package io.github.llmresilience.sample.drill;

import java.time.Duration;
import java.util.List;

import io.github.llmresilience.autoconfigure.LlmResilienceProperties;
import io.github.llmresilience.execute.CallOptions;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.sample.answers.AnswersProperties;
import io.github.llmresilience.sample.provider.ProviderClient;
import io.github.llmresilience.sample.simulator.Mode;
import io.github.llmresilience.sample.simulator.ModeSetting;
import io.github.llmresilience.sample.simulator.SimulatedProviders;
import io.github.llmresilience.sample.simulator.SimulatorProperties;
import io.github.llmresilience.sample.simulator.TargetStats;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * Runs the brownout drill through the application's own {@link LlmResilience} (so that
 * the overload control it measures is the one {@code llm.resilience.*} configures) on the
 * answers service's chain, against the simulator's first two targets of that chain in
 * {@code brownout} mode.
 */
@Component
@ConditionalOnBooleanProperty(name = "sample.simulator.enabled", matchIfMissing = true)
public class BrownoutDrill {

	/** The properties {@code --overload-control=on|off} sets. */
	static final List<String> OVERLOAD_CONTROL = List.of("llm.resilience.concurrency.enabled",
			"llm.resilience.client-throttling.enabled");

	private final SimulatedProviders simulator;

	private final SimulatorProperties simulatorProperties;

	private final ProviderClient client;

	private final LlmResilience resilience;

	private final LlmResilienceProperties properties;

	private final AnswersProperties answers;

	private final Environment environment;

	public BrownoutDrill(SimulatedProviders simulator, SimulatorProperties simulatorProperties, ProviderClient client,
			LlmResilience resilience, LlmResilienceProperties properties, AnswersProperties answers,
			Environment environment) {
		this.simulator = simulator;
		this.simulatorProperties = simulatorProperties;
		this.client = client;
		this.resilience = resilience;
		this.properties = properties;
		this.answers = answers;
		this.environment = environment;
	}

	/** Run the drill to its end and report; blocks for its ramp, hold and last calls. */
	public BrownoutDrillReport run(BrownoutDrillPlan plan) {
		String chain = this.answers.getChain();
		List<String> targets = DrillChains.primaryAndSecondary(this.properties, chain, "brownout");
		double peakRate = plan.peakInFlight() / DrillChains.meanLatencySeconds(this.simulatorProperties);
		List<Duration> arrivals = plan.arrivals(peakRate);
		this.simulator.reset();
		DrillChains.warmUp((n) -> call(chain, plan, -n - 1));
		this.simulator.reset();
		try {
			this.simulator.mode(targets.get(0), ModeSetting.of(Mode.BROWNOUT).withCapacity(plan.capacity()));
			this.simulator.mode(targets.get(1), ModeSetting.of(Mode.BROWNOUT).withCapacity(plan.secondaryCapacity()));
			// Calls start on boundedElastic, not on the parallel scheduler: started
			// there,
			// streams waited seconds for their first token on a 2-core machine (where the
			// simulator's timers share its two threads), which would count as latency.
			List<CallResult> results = Flux.range(0, arrivals.size())
				.flatMap((i) -> Mono.delay(arrivals.get(i), Schedulers.boundedElastic())
					.then(Mono.defer(() -> call(chain, plan, i))), Math.max(1, arrivals.size()))
				.collectList()
				.block(plan.ramp().plus(plan.hold()).plus(plan.deadline()).plus(Duration.ofMinutes(1)));
			List<Duration> latencies = results.stream().map(CallResult::latency).toList();
			long served = results.stream().filter(CallResult::served).count();
			List<Duration> answered = results.stream().filter(CallResult::served).map(CallResult::latency).toList();
			SimulatedProviders.Stats stats = this.simulator.stats();
			long requests = stats.targets().values().stream().mapToLong(TargetStats::requests).sum();
			long overloaded = stats.targets().values().stream().mapToLong(TargetStats::overloaded).sum();
			return new BrownoutDrillReport(plan, chain, targets, peakRate,
					DrillChains.settings(this.environment, OVERLOAD_CONTROL), results.size(), served,
					Figures.percentile(latencies, 50), Figures.percentile(latencies, 99), requests, overloaded,
					Figures.percentile(answered, 50), Figures.percentile(answered, 99));
		}
		finally {
			this.simulator.reset();
		}
	}

	/** One call, answered or not, and its time as the caller saw it. */
	private Mono<CallResult> call(String chain, BrownoutDrillPlan plan, int n) {
		String question = ((n < 0) ? "Warm-up question " + -n : "Question " + (n + 1))
				+ " of the brownout drill: summarise this support ticket.";
		long sent = System.nanoTime();
		return this.resilience
			.execute(chain, CallOptions.deadline(plan.deadline()), (attempt) -> this.client.answer(attempt, question))
			.map((answer) -> new CallResult(true, Duration.ofNanos(System.nanoTime() - sent)))
			.onErrorResume((ex) -> Mono.just(new CallResult(false, Duration.ofNanos(System.nanoTime() - sent))));
	}

	/**
	 * One call's end.
	 *
	 * @param served whether it was answered
	 * @param latency from its start to its answer or failure
	 */
	private record CallResult(boolean served, Duration latency) {

	}

}
