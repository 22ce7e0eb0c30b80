package io.github.llmresilience.sample.drill;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import io.github.llmresilience.autoconfigure.LlmResilienceProperties;
import io.github.llmresilience.execute.CallOptions;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.sample.answers.AnswersProperties;
import io.github.llmresilience.sample.provider.ProviderClient;
import io.github.llmresilience.sample.simulator.Mode;
import io.github.llmresilience.sample.simulator.ModeSetting;
import io.github.llmresilience.sample.simulator.SimulatedProviders;
import io.github.llmresilience.sample.simulator.TargetStats;
import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Statistic;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * Runs the tail drill through the application's own {@link LlmResilience} (so that the
 * hedging it measures is the one {@code llm.resilience.*} configures) on the answers
 * service's chain: streams, primary in {@code tail} mode, secondary normal.
 */
@Component
@ConditionalOnBooleanProperty(name = "sample.simulator.enabled", matchIfMissing = true)
public class TailDrill {

	/** The property {@code --hedging=on|off} sets. */
	static final String HEDGING = "llm.resilience.hedging.enabled";

	/** The library's hedging meter, and the tag of the hedges that won. */
	static final String HEDGES = "llm.resilience.hedges";

	private final SimulatedProviders simulator;

	private final ProviderClient client;

	private final LlmResilience resilience;

	private final LlmResilienceProperties properties;

	private final AnswersProperties answers;

	private final Environment environment;

	private final ObjectProvider<MeterRegistry> meters;

	public TailDrill(SimulatedProviders simulator, ProviderClient client, LlmResilience resilience,
			LlmResilienceProperties properties, AnswersProperties answers, Environment environment,
			ObjectProvider<MeterRegistry> meters) {
		this.simulator = simulator;
		this.client = client;
		this.resilience = resilience;
		this.properties = properties;
		this.answers = answers;
		this.environment = environment;
		this.meters = meters;
	}

	/** Run the drill to its end and report; blocks for its calls and their streams. */
	public TailDrillReport run(TailDrillPlan plan) {
		String chain = this.answers.getChain();
		List<String> targets = DrillChains.primaryAndSecondary(this.properties, chain, "tail");
		MeterRegistry registry = this.meters.getIfAvailable();
		this.simulator.reset();
		DrillChains.warmUp((n) -> call(chain, plan, -n - 1));
		this.simulator.reset();
		long wonBefore = hedgesWon(registry);
		try {
			this.simulator.mode(targets.get(0), ModeSetting.of(Mode.TAIL).withProbability(plan.slowPercent() / 100));
			// Calls start on boundedElastic, not on the parallel scheduler: started
			// there,
			// streams waited seconds for their first token on a 2-core machine (where the
			// simulator's timers share its two threads), which would count as latency.
			List<StreamResult> results = Flux.range(0, plan.calls())
				.flatMap((i) -> Mono.delay(plan.period().multipliedBy(i), Schedulers.boundedElastic())
					.then(Mono.defer(() -> call(chain, plan, i))), plan.calls())
				.collectList()
				.block(plan.duration().plus(plan.deadline()).plus(Duration.ofMinutes(1)));
			List<Duration> firstTokens = results.stream().map(StreamResult::firstToken).toList();
			long withoutFirstToken = results.stream().filter((result) -> !result.gotFirstToken()).count();
			long requests = this.simulator.stats().targets().values().stream().mapToLong(TargetStats::requests).sum();
			return new TailDrillReport(plan, chain, targets, DrillChains.settings(this.environment, List.of(HEDGING)),
					withoutFirstToken, Figures.percentile(firstTokens, 50), Figures.percentile(firstTokens, 99),
					requests, hedgesWon(registry) - wonBefore);
		}
		finally {
			this.simulator.reset();
		}
	}

	/**
	 * One streaming call, read to its end as a caller would, and the time to its first
	 * token (or, without one, to its end).
	 */
	private Mono<StreamResult> call(String chain, TailDrillPlan plan, int n) {
		String question = ((n < 0) ? "Warm-up question " + -n : "Question " + (n + 1))
				+ " of the tail drill: draft a reply to this customer.";
		long sent = System.nanoTime();
		AtomicLong firstToken = new AtomicLong(-1);
		return this.resilience
			.stream(chain, CallOptions.deadline(plan.deadline()), (attempt) -> this.client.stream(attempt, question))
			.doOnNext((token) -> firstToken.compareAndSet(-1, System.nanoTime() - sent))
			.then(Mono.fromCallable(() -> result(firstToken, sent)))
			.onErrorResume((ex) -> Mono.just(result(firstToken, sent)));
	}

	private static StreamResult result(AtomicLong firstToken, long sent) {
		long first = firstToken.get();
		return (first >= 0) ? new StreamResult(true, Duration.ofNanos(first))
				: new StreamResult(false, Duration.ofNanos(System.nanoTime() - sent));
	}

	/**
	 * The hedges that won so far, from the library's meter if it has one: the meter is
	 * looked up by name, so that the drill runs against a library with or without
	 * hedging.
	 */
	static long hedgesWon(@Nullable MeterRegistry registry) {
		if (registry == null) {
			return 0;
		}
		double won = 0;
		for (Meter meter : registry.find(HEDGES).tag("result", "won").meters()) {
			for (Measurement measurement : meter.measure()) {
				if (measurement.getStatistic() == Statistic.COUNT) {
					won += measurement.getValue();
				}
			}
		}
		return Math.round(won);
	}

	/**
	 * One streaming call's end.
	 *
	 * @param gotFirstToken whether a first token came
	 * @param firstToken the time to it, or to the call's end without one
	 */
	private record StreamResult(boolean gotFirstToken, Duration firstToken) {

	}

}
