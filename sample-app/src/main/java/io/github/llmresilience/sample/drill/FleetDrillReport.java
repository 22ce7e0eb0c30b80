package io.github.llmresilience.sample.drill;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * What the fleet drill measured.
 *
 * @param plan the drill
 * @param chain the chain the pods call
 * @param chainTargets its targets, in order
 * @param callsDuringOutage requests primary received while in outage, from every pod
 * @param openedAfter from the start of the outage to the first pod's breaker opening on
 * primary's failure domain, or {@code null} when none opened during the outage
 * @param openings breaker openings on that domain during the outage, on every pod (a pod
 * that follows the fleet opens again after each failed trial)
 * @param trials half-open trials on that domain, from the start of the outage to the end
 * of the drill (each is one request to primary)
 * @param firstServedAfterRecovery from the end of the outage to the first call primary
 * answered, or {@code null} when none did before the drill's limit
 * @param calls calls the pods made from the start of the drill
 * @param servedElsewhere those answered by a target other than primary
 * @param unavailable those that no target could serve
 * @param failed those that failed in another way
 */
public record FleetDrillReport(FleetDrillPlan plan, String chain, List<String> chainTargets, long callsDuringOutage,
		@Nullable Duration openedAfter, long openings, long trials, @Nullable Duration firstServedAfterRecovery,
		long calls, long servedElsewhere, long unavailable, long failed) {

	/** The drill's output, as printed. */
	public List<String> lines() {
		FleetDrillPlan plan = this.plan;
		List<String> lines = new ArrayList<>();
		lines.add(String.format(Locale.ROOT,
				"Fleet drill: %d pods, %d calls a minute in all (one every %s s a pod), chain %s %s, fleet mode %s; "
						+ "breaker minimum-calls %d of %d, open %s s; %s; primary in outage for %s s",
				plan.pods(), plan.callsPerMinute(), Figures.seconds(plan.callPeriod()), this.chain, this.chainTargets,
				plan.fleet() ? "on" : "off", plan.breaker().minimumCalls(), plan.breaker().slidingWindowSize(),
				Figures.seconds(plan.breaker().openDuration()),
				plan.fleet() ? "fleet window " + Figures.seconds(plan.window()) + " s, sync every "
						+ Figures.seconds(plan.syncInterval()) + " s, probe every "
						+ Figures.seconds(plan.probeInterval()) + " s" : "every pod decides alone",
				Figures.seconds(plan.outage())));
		if (plan.timeScale() != 1) {
			lines.add(String.format(Locale.ROOT, "(time scaled by %s: every duration above is already scaled)",
					Figures.trim(plan.timeScale())));
		}
		lines.add("Calls that reached the provider during the outage: " + this.callsDuringOutage);
		lines.add((this.openedAfter != null) ? "Breaker opened after " + Figures.seconds(this.openedAfter) + " s"
				: "Breaker opened after: never");
		lines.add("Trial requests while open: " + this.trials);
		lines.add("First call served after the provider recovered: "
				+ ((this.firstServedAfterRecovery != null) ? Figures.seconds(this.firstServedAfterRecovery) + " s"
						: "none within " + Figures.seconds(plan.afterRecovery()) + " s"));
		lines.add(String.format(Locale.ROOT,
				"Breaker openings on primary's domain, all pods: %d; calls in all: %d (served by another target: %d, "
						+ "unavailable: %d, failed: %d)",
				this.openings, this.calls, this.servedElsewhere, this.unavailable, this.failed));
		return lines;
	}

}
