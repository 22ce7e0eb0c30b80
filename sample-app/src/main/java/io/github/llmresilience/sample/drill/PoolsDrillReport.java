package io.github.llmresilience.sample.drill;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * What the pools drill measured.
 *
 * @param plan the drill
 * @param capacity the capacity the engine learned for primary's scope, or {@code null}
 * (pools off, or nothing learned)
 * @param interactiveServed interactive calls answered
 * @param interactiveRateLimited interactive calls that failed rate limited (every target
 * only rate limited, or the pool's share spent)
 * @param interactiveFailed interactive calls that failed otherwise
 * @param interactiveLongestWait the longest an interactive call took
 * @param backgroundServed background calls answered
 * @param backgroundTime from the start of the job to its last call's end
 * @param refused requests primary answered with 429 during the drill
 * @param accepted requests primary answered, from the warm-up call to the drill's end
 * @param allowed requests primary's limit allowed over that time: a full bucket at the
 * start, and its refill since
 */
public record PoolsDrillReport(PoolsDrillPlan plan, @Nullable String capacity, long interactiveServed,
		long interactiveRateLimited, long interactiveFailed, Duration interactiveLongestWait, long backgroundServed,
		Duration backgroundTime, long refused, long accepted, long allowed) {

	/** The drill's output, as printed. */
	public List<String> lines() {
		PoolsDrillPlan plan = this.plan;
		List<String> lines = new ArrayList<>();
		lines.add(String.format(Locale.ROOT,
				"Pools drill: primary accepts %d requests a minute; an interactive call every %s s for %s s beside "
						+ "a background job of %d calls sent at once; pools %s",
				plan.simulatorLimit(), Figures.seconds(plan.interactivePeriod()), Figures.seconds(plan.duration()),
				plan.backgroundCalls(),
				plan.pools() ? "on (interactive 70 %, background 20 %, evaluation 10 %)" : "off"));
		if (plan.timeScale() != 1) {
			lines.add(String.format(Locale.ROOT, "(time scaled by %s: durations times %s, the rate divided by it)",
					Figures.trim(plan.timeScale()), Figures.trim(plan.timeScale())));
		}
		if (this.capacity != null) {
			lines.add("Capacity learned from the provider's headers: " + this.capacity);
		}
		lines.add(String.format(Locale.ROOT, "Quota used: %s %% of what the provider allowed (%d of %d requests)",
				Figures.trim(quotaUsed()), this.accepted, this.allowed));
		lines.add(String.format(Locale.ROOT, "Interactive calls: served %d of %d, rate limited %d",
				this.interactiveServed, plan.interactiveCalls(), this.interactiveRateLimited));
		lines.add(String.format(Locale.ROOT, "Background calls: served %d of %d in %s s", this.backgroundServed,
				plan.backgroundCalls(), Figures.seconds(this.backgroundTime)));
		lines.add(String.format(Locale.ROOT,
				"Interactive calls failed otherwise: %d; longest interactive call: %s s; requests primary refused "
						+ "with 429: %d",
				this.interactiveFailed, Figures.seconds(this.interactiveLongestWait), this.refused));
		return lines;
	}

	/** The requests primary answered, in percent of what its limit allowed. */
	public double quotaUsed() {
		return (this.allowed > 0) ? 100.0 * this.accepted / this.allowed : 0;
	}

}
