package io.github.llmresilience.sample.drill;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What the fleet pools drill measured, from the simulator's own count (accepted and
 * refused requests) and the pods' calls.
 *
 * @param plan the drill
 * @param accepted requests primary answered, from the first pod's warm-up call to the
 * drill's end
 * @param allowed requests primary's limit allowed over that time: a full bucket at the
 * start, and its refill since
 * @param refused requests primary answered with 429: the fleet sent more than its limit
 * allowed
 * @param interactiveServed interactive calls answered, all pods
 * @param interactiveRateLimited interactive calls that failed rate limited
 * @param interactiveFailed interactive calls that failed otherwise
 * @param interactiveLongest the longest an interactive call took
 * @param backgroundServed background calls answered, all pods
 * @param busyServed calls (both kinds) answered on the busy pods
 * @param idleServed calls (both kinds) answered on the other pods
 */
public record PoolsFleetDrillReport(PoolsFleetDrillPlan plan, long accepted, long allowed, long refused,
		long interactiveServed, long interactiveRateLimited, long interactiveFailed, Duration interactiveLongest,
		long backgroundServed, long busyServed, long idleServed) {

	/** The drill's output, as printed. */
	public List<String> lines() {
		PoolsFleetDrillPlan plan = this.plan;
		List<String> lines = new ArrayList<>();
		lines.add(String.format(Locale.ROOT,
				"Pools fleet drill: %d pods, %d %% of the load on %d of them; primary accepts %d requests a minute; "
						+ "%d interactive calls over %s s beside a background job of %d calls sent at once; "
						+ "the scope shared by %s",
				plan.pods(), (plan.busyPods() == plan.pods()) ? 100 : plan.skew(), plan.busyPods(),
				plan.simulatorLimit(), plan.interactiveCalls(), Figures.seconds(plan.duration()),
				plan.backgroundCalls(), plan.sharing().described()));
		if (plan.timeScale() != 1) {
			lines.add(String.format(Locale.ROOT, "(time scaled by %s: durations times %s, the rate divided by it)",
					Figures.trim(plan.timeScale()), Figures.trim(plan.timeScale())));
		}
		lines.add(String.format(Locale.ROOT,
				"Quota used: %s %% of what the provider allowed; refused by the provider: %d; interactive served %d "
						+ "of %d, rate limited %d; background served %d",
				Figures.trim(quotaUsed()), this.refused, this.interactiveServed, plan.interactiveCalls(),
				this.interactiveRateLimited, this.backgroundServed));
		lines.add(String.format(Locale.ROOT,
				"(%d of %d requests allowed; busy pods served %d calls, the others %d; interactive calls failed "
						+ "otherwise: %d; longest interactive call: %s s)",
				this.accepted, this.allowed, this.busyServed, this.idleServed, this.interactiveFailed,
				Figures.seconds(this.interactiveLongest)));
		return lines;
	}

	/** The requests primary answered, in percent of what its limit allowed. */
	public double quotaUsed() {
		return (this.allowed > 0) ? 100.0 * this.accepted / this.allowed : 0;
	}

}
