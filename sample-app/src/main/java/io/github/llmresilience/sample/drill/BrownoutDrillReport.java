package io.github.llmresilience.sample.drill;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * What the brownout drill measured.
 *
 * @param plan the drill
 * @param chain the chain the calls went through
 * @param targets its targets, primary and secondary first
 * @param peakRate calls a second at the peak
 * @param overloadControl the overload control properties as the application has them
 * @param calls the calls made
 * @param served the calls answered
 * @param p50 the median time of a call as its caller saw it, answered or failed
 * @param p99 its 99th percentile
 * @param providerRequests the requests every simulated target received
 * @param overloaded the requests answered with the vendor's overload answer
 * @param answeredP50 the median time of the answered calls alone
 * @param answeredP99 their 99th percentile
 */
public record BrownoutDrillReport(BrownoutDrillPlan plan, String chain, List<String> targets, double peakRate,
		String overloadControl, long calls, long served, Duration p50, Duration p99, long providerRequests,
		long overloaded, Duration answeredP50, Duration answeredP99) {

	/** The drill's output, as printed: what ran, then the one line of figures. */
	public List<String> lines() {
		BrownoutDrillPlan plan = this.plan;
		String header = String.format(Locale.ROOT,
				"Brownout drill: chain %s %s; %s in brownout serving %d at once, %s serving %d; the load ramps to "
						+ "%s× %s's capacity (%s calls in flight at the normal latency, %s calls a second) over %s s "
						+ "and holds for %s s; deadline %s s a call; overload control: %s",
				this.chain, this.targets, this.targets.get(0), plan.capacity(), this.targets.get(1),
				plan.secondaryCapacity(), Figures.trim(plan.peak()), this.targets.get(0),
				Figures.trim(plan.peakInFlight()), Figures.trim(this.peakRate), Figures.seconds(plan.ramp()),
				Figures.seconds(plan.hold()), Figures.seconds(plan.deadline()), this.overloadControl);
		return List.of(header, figures(), answered());
	}

	/**
	 * The answered calls' own latency: a call that fails at once is quick, so the
	 * figures' percentiles over every call fall as more calls fail.
	 */
	public String answered() {
		return String.format(Locale.ROOT, "Answered calls alone: p50/p99 latency %d/%d ms", this.answeredP50.toMillis(),
				this.answeredP99.toMillis());
	}

	/**
	 * "Served N of M; p50/p99 latency A/B ms; provider requests R; overloaded answers O".
	 */
	public String figures() {
		return String.format(Locale.ROOT,
				"Served %d of %d; p50/p99 latency %d/%d ms; provider requests %d; overloaded answers %d", this.served,
				this.calls, this.p50.toMillis(), this.p99.toMillis(), this.providerRequests, this.overloaded);
	}

}
