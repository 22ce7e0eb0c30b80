package io.github.llmresilience.breaker;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * What Resilience4j's half-open state does not tell: whether a trial permit is left, and
 * since when the breaker waits for its trials. Resilience4j waits for them forever when
 * {@code maxWaitDurationInHalfOpenState} is zero, and its own limit runs on a scheduler
 * thread of real time; here the limit is read from the breaker's clock when a call is
 * refused.
 */
final class HalfOpenTrials {

	private final int calls;

	private final long timeoutMillis;

	/**
	 * Trial permits left, mirroring Resilience4j's own count (which it does not expose):
	 * taken by an acquire, given back by a release or an ignored failure, reset by every
	 * transition to half-open.
	 */
	private final AtomicInteger free = new AtomicInteger();

	private volatile long sinceMillis;

	HalfOpenTrials(int calls, long timeoutMillis) {
		this.calls = calls;
		this.timeoutMillis = timeoutMillis;
	}

	/** The breaker went half-open: every trial is free. */
	void began(long nowMillis) {
		this.sinceMillis = nowMillis;
		this.free.set(this.calls);
	}

	/** A trial permit was taken. */
	void take() {
		this.free.decrementAndGet();
	}

	/** A permit Resilience4j took back: one more trial is free, never more than all. */
	void giveBack() {
		if (this.free.incrementAndGet() > this.calls) {
			this.free.decrementAndGet();
		}
	}

	/** Whether a trial permit is left. */
	boolean anyFree() {
		return this.free.get() > 0;
	}

	/** Whether the half-open state has waited for its trials past the timeout. */
	boolean expired(long nowMillis) {
		return nowMillis - this.sinceMillis >= this.timeoutMillis;
	}

}
