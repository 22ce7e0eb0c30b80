package io.github.llmresilience.sample.drill;

import java.time.Duration;

/**
 * One drill: which chain, how many jobs, what happens to which target and for how long.
 * The factory methods are the published course's experiment; tests shorten the times.
 *
 * @param kind the drill
 * @param chain the chain the jobs are answered through
 * @param target the simulated target that fails
 * @param jobs how many jobs are queued
 * @param concurrency jobs the worker runs at the same time
 * @param incident how long the target fails (outage or rate limit)
 * @param limit the longest the drill waits for every job to settle, from its start
 * @param breaker whether the target's breaker is on; off also makes the worker spend an
 * attempt on every failure (see {@code WhenUnavailable})
 * @param maxAttempts attempts a job may spend before it is a dead letter
 * @param attemptDelay how long a job waits after a spent attempt
 * @param retryAfterSeconds the wait a rate limit asks for (throttle drill)
 * @param jobInterval the time between two submitted jobs, or zero to queue them all at
 * once
 */
public record DrillPlan(Kind kind, String chain, String target, int jobs, int concurrency, Duration incident,
		Duration limit, boolean breaker, int maxAttempts, Duration attemptDelay, int retryAfterSeconds,
		Duration jobInterval) {

	/** The drills there are. */
	public enum Kind {

		/** The target fails for a while under a chain of only that target. */
		OUTAGE,

		/** The same with the full chain: another target can serve meanwhile. */
		OUTAGE_FAILOVER,

		/** The target rate-limits for a while as jobs flow in. */
		THROTTLE,

		/**
		 * The target's account is out of quota for a while, with another target behind.
		 */
		QUOTA,

		/** The target accepts requests and never answers; one job, one attempt. */
		HANG

	}

	/**
	 * The course: a 20-second outage of primary, 30 queued jobs, worker concurrency 4, 5
	 * attempts a job.
	 */
	public static DrillPlan outage(boolean breaker) {
		return new DrillPlan(Kind.OUTAGE, "primary-only", "primary", 30, 4, Duration.ofSeconds(20),
				Duration.ofSeconds(65), breaker, 5, Duration.ofSeconds(2), 0, Duration.ZERO);
	}

	/** The course's outage, with secondary behind primary. */
	public static DrillPlan outageFailover(boolean breaker) {
		return new DrillPlan(Kind.OUTAGE_FAILOVER, "chat", "primary", 30, 4, Duration.ofSeconds(20),
				Duration.ofSeconds(65), breaker, 5, Duration.ofSeconds(2), 0, Duration.ZERO);
	}

	/**
	 * Primary rate-limited ({@code retry-after: 2}) for 10 s while 40 jobs arrive, one
	 * every 250 ms.
	 */
	public static DrillPlan throttle(boolean breaker) {
		return new DrillPlan(Kind.THROTTLE, "chat", "primary", 40, 4, Duration.ofSeconds(10), Duration.ofSeconds(65),
				breaker, 5, Duration.ofSeconds(2), 2, Duration.ofMillis(250));
	}

	/**
	 * Primary out of quota ({@code insufficient_quota}) for 20 s under the full chain, 30
	 * queued jobs.
	 */
	public static DrillPlan quota(boolean breaker) {
		return new DrillPlan(Kind.QUOTA, "chat", "primary", 30, 4, Duration.ofSeconds(20), Duration.ofSeconds(65),
				breaker, 5, Duration.ofSeconds(2), 0, Duration.ZERO);
	}

	/**
	 * Primary hangs for 5 minutes under the full chain; one job with one attempt, so the
	 * drill's time is the time to that job's answer (or failure).
	 */
	public static DrillPlan hang(boolean breaker) {
		return new DrillPlan(Kind.HANG, "chat", "primary", 1, 1, Duration.ofMinutes(5), Duration.ofMinutes(5), breaker,
				1, Duration.ofSeconds(2), 0, Duration.ZERO);
	}

	public DrillPlan withIncident(Duration incident) {
		return new DrillPlan(this.kind, this.chain, this.target, this.jobs, this.concurrency, incident, this.limit,
				this.breaker, this.maxAttempts, this.attemptDelay, this.retryAfterSeconds, this.jobInterval);
	}

	public DrillPlan withLimit(Duration limit) {
		return new DrillPlan(this.kind, this.chain, this.target, this.jobs, this.concurrency, this.incident, limit,
				this.breaker, this.maxAttempts, this.attemptDelay, this.retryAfterSeconds, this.jobInterval);
	}

	public DrillPlan withAttemptDelay(Duration attemptDelay) {
		return new DrillPlan(this.kind, this.chain, this.target, this.jobs, this.concurrency, this.incident, this.limit,
				this.breaker, this.maxAttempts, attemptDelay, this.retryAfterSeconds, this.jobInterval);
	}

}
