package io.github.llmresilience.breaker;

import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

import io.github.llmresilience.classify.Verdict;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;

/**
 * The breaker of one failure domain: a Resilience4j {@link CircuitBreaker} plus what it
 * does not tell, the moment an open breaker will let a trial through.
 */
public final class Breaker {

	private final String domain;

	private final CircuitBreaker circuitBreaker;

	private final BreakerSettings settings;

	private final Clock clock;

	/** Consecutive openings without a close; the open duration doubles with each. */
	private int openings;

	private volatile long openUntilMillis;

	Breaker(String domain, CircuitBreaker circuitBreaker, BreakerSettings settings, Clock clock) {
		this.domain = domain;
		this.circuitBreaker = circuitBreaker;
		this.settings = settings;
		this.clock = clock;
	}

	public String domain() {
		return this.domain;
	}

	public CircuitBreaker circuitBreaker() {
		return this.circuitBreaker;
	}

	public BreakerSettings settings() {
		return this.settings;
	}

	public CircuitBreaker.State state() {
		return this.circuitBreaker.getState();
	}

	/** Take a permit for one call; {@code false} when the breaker refuses it. */
	public boolean tryAcquire() {
		return this.circuitBreaker.tryAcquirePermission();
	}

	/** Give back a permit unused: the call was cancelled, neither success nor failure. */
	public void release() {
		this.circuitBreaker.releasePermission();
	}

	public void onSuccess(long nanos) {
		this.circuitBreaker.onSuccess(nanos, TimeUnit.NANOSECONDS);
	}

	/**
	 * Record a classified failure: the breaker's predicates count it as a failure,
	 * success or nothing, as the verdict says.
	 */
	public void onFailure(long nanos, Verdict verdict, Throwable cause) {
		this.circuitBreaker.onError(nanos, TimeUnit.NANOSECONDS, new ClassifiedFailure(verdict, cause));
	}

	/**
	 * When this breaker may let a call through: now when closed or half-open, the end of
	 * the open duration when open, never ({@link Instant#MAX}) when forced open.
	 */
	public Instant availableAt() {
		return switch (this.circuitBreaker.getState()) {
			case OPEN -> Instant.ofEpochMilli(this.openUntilMillis);
			case FORCED_OPEN -> Instant.MAX;
			default -> this.clock.instant();
		};
	}

	/** Whether a call could be let through now, without taking a permit. */
	public boolean isUsable() {
		return switch (this.circuitBreaker.getState()) {
			case OPEN -> this.clock.millis() > this.openUntilMillis;
			case FORCED_OPEN -> false;
			default -> true;
		};
	}

	synchronized void opened() {
		this.openings++;
		this.openUntilMillis = this.clock.millis() + this.settings.openDurationAfter(this.openings).toMillis();
	}

	synchronized void closed() {
		this.openings = 0;
	}

	@Override
	public String toString() {
		return "Breaker[" + this.domain + " " + state() + "]";
	}

}
