package io.github.llmresilience.breaker.internal;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A breaker's canary mode: the {@link TrialProbe} that sends the half-open trial in a
 * call's place, and the one trial it has in flight, by number, so that an answer to a
 * trial already over is told from the current one. Guarded by the breaker's lock.
 */
final class ProbeLease {

	/**
	 * Trials sent so far, by every lease: a breaker whose canary was dropped and another
	 * given never takes a late answer of the first for the second's trial.
	 */
	private static final AtomicLong SENT = new AtomicLong();

	private final TrialProbe probe;

	/** The trial in flight, by number; 0 when none. */
	private long inFlight;

	ProbeLease(TrialProbe probe) {
		this.probe = probe;
	}

	TrialProbe probe() {
		return this.probe;
	}

	boolean isInFlight() {
		return this.inFlight != 0;
	}

	/**
	 * Number the next trial and hold the lease for it.
	 * @return its number, for {@link TrialProbe#send(Breaker, long)}
	 */
	long start() {
		this.inFlight = SENT.incrementAndGet();
		return this.inFlight;
	}

	/**
	 * The answer to a trial: it settles the lease when it is the trial in flight.
	 * @return whether it was (else the answer is stale and dropped)
	 */
	boolean settle(long trial) {
		if (trial != this.inFlight) {
			return false;
		}
		this.inFlight = 0;
		return true;
	}

	/** The trial in flight, if any, is over (the breaker opened or closed meanwhile). */
	void end() {
		this.inFlight = 0;
	}

}
