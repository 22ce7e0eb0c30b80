package io.github.llmresilience.sample.jobs;

/**
 * What a worker does with a job whose call failed with {@code LlmUnavailableException}.
 */
public enum WhenUnavailable {

	/**
	 * Back to the queue until {@code retryAfter()}, attempts unchanged. Right when a
	 * breaker, gate or park stands behind the exception: it knows that no provider can
	 * serve yet, and when that may change, so failing the job would only punish it for
	 * the provider's outage.
	 */
	REQUEUE,

	/**
	 * Spend an attempt, like any other failure. What a worker without a breaker does (the
	 * course's baseline): nothing knows the provider is down, so each failed call counts
	 * against the job.
	 */
	SPEND_ATTEMPT

}
