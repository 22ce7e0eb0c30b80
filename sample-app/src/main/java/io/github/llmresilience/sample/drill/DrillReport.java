package io.github.llmresilience.sample.drill;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.llmresilience.sample.jobs.JobState;

/**
 * What a drill measured.
 *
 * @param plan the drill
 * @param client how the jobs called the providers
 * @param chainTargets the targets of the drill's chain, in order
 * @param minimumCalls the breaker's {@code minimum-calls}
 * @param callsDuringIncident requests the failing target received while it failed
 * @param statusesDuringIncident those requests by the status they were answered with
 * @param insideRetryAfter requests the failing target received before the wait its last
 * 429 asked for had passed
 * @param jobs the jobs by state at the end
 * @param servedBy succeeded jobs by the target that answered them
 * @param servedDuringIncident jobs answered while the target failed, by target
 * @param elapsed from the start of the incident until every job had settled (or the
 * limit)
 */
public record DrillReport(DrillPlan plan, DrillClient client, List<String> chainTargets, int minimumCalls,
		long callsDuringIncident, Map<Integer, Long> statusesDuringIncident, long insideRetryAfter,
		Map<JobState, Long> jobs, Map<String, Long> servedBy, Map<String, Long> servedDuringIncident,
		Duration elapsed) {

	public long succeeded() {
		return this.jobs.getOrDefault(JobState.SUCCEEDED, 0L);
	}

	public long deadLetters() {
		return this.jobs.getOrDefault(JobState.DEAD_LETTER, 0L);
	}

	/** The drill's output, as printed. */
	public List<String> lines() {
		List<String> lines = new ArrayList<>();
		String target = this.plan.target();
		long incidentSeconds = this.plan.incident().toSeconds();
		String setup = "chain " + this.plan.chain() + " " + this.chainTargets + ", " + this.plan.jobs() + " jobs";
		String breaker = (this.client == DrillClient.SPRING_AI_PLAIN)
				? "plain Spring AI (" + target + "'s chat model called directly, the SDK's own retries)"
				: (this.client == DrillClient.LANGCHAIN4J_PLAIN)
						? "plain LangChain4j (" + target + "'s chat model called directly, LangChain4j's own retries)"
						: this.plan.breaker() ? "breaker on (opens after minimum-calls " + this.minimumCalls + ")"
								: "breaker off (every failure spends one of a job's " + this.plan.maxAttempts()
										+ " attempts)";
		if (this.client == DrillClient.SPRING_AI) {
			breaker += ", client Spring AI (" + this.plan.chain() + "ChatModel)";
		}
		if (this.client == DrillClient.LANGCHAIN4J) {
			breaker += ", client LangChain4j (" + this.plan.chain() + "Lc4jChatModel)";
		}
		switch (this.plan.kind()) {
			case OUTAGE, OUTAGE_FAILOVER -> {
				lines.add(((this.plan.kind() == DrillPlan.Kind.OUTAGE) ? "Outage drill: "
						: "Outage drill with failover: ") + setup + ", worker concurrency " + this.plan.concurrency()
						+ ", " + breaker + "; " + target + " in outage for " + incidentSeconds + " s");
				lines.add("Calls that reached the provider during the outage: " + this.callsDuringIncident
						+ " (answered " + this.statusesDuringIncident + ")");
				if (this.plan.kind() == DrillPlan.Kind.OUTAGE_FAILOVER) {
					for (String other : this.chainTargets) {
						if (!other.equals(target)) {
							lines.add("Jobs served by " + other + " during the outage: "
									+ this.servedDuringIncident.getOrDefault(other, 0L) + " (all jobs by target: "
									+ this.servedBy + ")");
						}
					}
				}
			}
			case QUOTA -> {
				lines.add("Quota drill: " + setup + ", worker concurrency " + this.plan.concurrency() + ", " + breaker
						+ "; " + target + " out of quota (insufficient_quota) for " + incidentSeconds + " s");
				lines.add("Calls that reached " + target + " while out of quota: " + this.callsDuringIncident
						+ " (answered " + this.statusesDuringIncident + ")");
				lines.add("Jobs served by: " + this.servedBy);
			}
			case HANG -> {
				lines.add("Hang drill: " + setup + ", " + breaker + "; " + target
						+ " accepts requests and never answers");
				lines.add("Calls that reached " + target + " while it hung: " + this.callsDuringIncident);
				lines.add("Time to the job's end: "
						+ String.format(java.util.Locale.ROOT, "%.1f", this.elapsed.toMillis() / 1000.0) + " s ("
						+ ((succeeded() > 0) ? "answered by " + this.servedBy.keySet() : "no answer") + ")");
			}
			case THROTTLE -> {
				lines.add("Throttle drill: " + setup + " (one every " + this.plan.jobInterval().toMillis()
						+ " ms), worker concurrency " + this.plan.concurrency() + "; " + target
						+ " rate limited (retry-after: " + this.plan.retryAfterSeconds() + ") for " + incidentSeconds
						+ " s");
				lines.add("Calls to " + target + " while throttled: " + this.insideRetryAfter
						+ " (inside a retry-after window; " + target + " answered " + this.statusesDuringIncident
						+ " during the throttle)");
				lines.add("Jobs served by: " + this.servedBy + " (during the throttle: " + this.servedDuringIncident
						+ ")");
			}
		}
		lines.add("Jobs at the end (" + Math.round(this.elapsed.toMillis() / 1000.0) + " s): succeeded " + succeeded()
				+ ", dead_letter " + deadLetters());
		return lines;
	}

}
