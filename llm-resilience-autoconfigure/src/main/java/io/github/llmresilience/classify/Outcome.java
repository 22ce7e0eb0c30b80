package io.github.llmresilience.classify;

/**
 * What a provider's answer (or the lack of one) means for the three decisions a resilient
 * call has to make: retry the same target, count it against the target's health, fail
 * over to the next target.
 *
 * <p>
 * The flags follow the verdict table of the design: a status-code breaker makes one
 * decision where these three are needed.
 */
public enum Outcome {

	/** The provider answered. */
	SUCCESS(false, false, false),

	/**
	 * 5xx, 529/overloaded, 408, timeout, connection refused or reset: the provider is
	 * unwell.
	 */
	AVAILABILITY(true, true, true),

	/**
	 * A rate limit of this quota scope; the throttle gate waits, the provider is healthy.
	 */
	THROTTLED(false, false, true),

	/**
	 * Spend cap, insufficient quota, daily quota exhausted: the account is out until a
	 * reset.
	 */
	QUOTA(false, false, true),

	/** Key revoked or wrong, or the account is not entitled to the model. */
	CREDENTIAL(false, false, true),

	/**
	 * Malformed, too long, unknown model: the caller's bug, identical on every target.
	 */
	REQUEST(false, false, false),

	/**
	 * A safety refusal, deterministic for the input: paying another provider to refuse
	 * helps nobody.
	 */
	CONTENT_FILTER(false, false, false),

	/**
	 * A stream died after its first token: the caller has already seen part of an answer.
	 */
	STREAM_INTERRUPTED(false, true, false);

	private final boolean retry;

	private final boolean countsAsFailure;

	private final boolean failover;

	Outcome(boolean retry, boolean countsAsFailure, boolean failover) {
		this.retry = retry;
		this.countsAsFailure = countsAsFailure;
		this.failover = failover;
	}

	/** Whether the same target may be tried again (within the retry budget). */
	public boolean retry() {
		return this.retry;
	}

	/** Whether the failure domain's breaker records this as a failure. */
	public boolean countsAsFailure() {
		return this.countsAsFailure;
	}

	/** Whether the next target of the chain may serve the call instead. */
	public boolean failover() {
		return this.failover;
	}

	/** Whether this outcome is an error the caller, not the provider, must fix. */
	public boolean isCallersFault() {
		return this == REQUEST || this == CONTENT_FILTER;
	}

}
