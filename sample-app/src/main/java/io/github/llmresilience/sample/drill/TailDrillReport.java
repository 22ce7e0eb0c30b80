package io.github.llmresilience.sample.drill;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * What the tail drill measured.
 *
 * @param plan the drill
 * @param chain the chain the calls went through
 * @param targets its targets, primary and secondary first
 * @param hedging the hedging property as the application has it
 * @param withoutFirstToken calls that ended before a first token
 * @param p50 the median time to a call's first token, as its caller saw it (for a call
 * without one: to its end)
 * @param p99 its 99th percentile
 * @param providerRequests the requests every simulated target received
 * @param hedgesWon hedges whose first token came first ({@code llm.resilience.hedges},
 * {@code result=won}, during the drill; 0 without the meter)
 */
public record TailDrillReport(TailDrillPlan plan, String chain, List<String> targets, String hedging,
		long withoutFirstToken, Duration p50, Duration p99, long providerRequests, long hedgesWon) {

	/** The drill's output, as printed: what ran, then the one line of figures. */
	public List<String> lines() {
		TailDrillPlan plan = this.plan;
		String header = String.format(Locale.ROOT,
				"Tail drill: %d streaming calls, one every %s s, through chain %s %s; %s in tail (%s %% of first "
						+ "tokens ten times later), %s normal; deadline %s s a call; hedging: %s; calls without a "
						+ "first token: %d",
				plan.calls(), Figures.seconds(plan.period()), this.chain, this.targets, this.targets.get(0),
				Figures.trim(plan.slowPercent()), this.targets.get(1), Figures.seconds(plan.deadline()), this.hedging,
				this.withoutFirstToken);
		return List.of(header, figures());
	}

	/** "p50/p99 time to first token A/B ms; extra requests E %; hedges won W". */
	public String figures() {
		return String.format(Locale.ROOT, "p50/p99 time to first token %d/%d ms; extra requests %s %%; hedges won %d",
				this.p50.toMillis(), this.p99.toMillis(), Figures.trim(extraRequests()), this.hedgesWon);
	}

	/** Provider requests beyond one a call, in percent of the calls. */
	public double extraRequests() {
		return 100.0 * (this.providerRequests - this.plan.calls()) / this.plan.calls();
	}

}
