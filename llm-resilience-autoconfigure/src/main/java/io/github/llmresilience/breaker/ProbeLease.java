package io.github.llmresilience.breaker;

import java.util.concurrent.atomic.AtomicLong;

import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.Verdict;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;

/**
 * A breaker's canary mode: the {@link TrialProbe} sends the half-open trial in a call's
 * place, so an open or half-open breaker refuses every call, and the one trial in flight
 * is held by number, so that an answer to a trial already over is told from the current
 * one. It moves its breaker as Resilience4j's state classes move their state machine:
 * through the breaker, under the breaker's lock, which guards its trial.
 */
final class ProbeLease {

	/**
	 * Trials sent so far, by every lease: a breaker whose canary was dropped and another
	 * given never takes a late answer of the first for the second's trial.
	 */
	private static final AtomicLong SENT = new AtomicLong();

	private final Breaker breaker;

	private final TrialProbe probe;

	private final long slowCallNanos;

	/** The trial in flight, by number; 0 when none. */
	private long inFlight;

	ProbeLease(Breaker breaker, TrialProbe probe) {
		this.breaker = breaker;
		this.probe = probe;
		this.slowCallNanos = breaker.settings().slowCallDuration().toNanos();
	}

	TrialProbe probe() {
		return this.probe;
	}

	/** Wake the canary when the open time ends. */
	void wakeAt(long atMillis) {
		this.probe.wakeAt(this.breaker, atMillis);
	}

	boolean isInFlight() {
		return this.inFlight != 0;
	}

	/**
	 * Number the next trial and hold the lease for it.
	 * @return its number, for {@link TrialProbe#send(Breaker, long)}
	 */
	long begin() {
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

	/**
	 * The canary stops: a trial in flight gives its permit back, so the breaker stays
	 * half-open and the next call is its trial.
	 */
	void drop() {
		if (isInFlight() && this.breaker.state() == CircuitBreaker.State.HALF_OPEN) {
			this.breaker.release();
		}
		end();
	}

	/**
	 * A call finds the canary's breaker: refused when open or half-open; the call that
	 * finds the open time over starts the canary (should its wake-up have been missed),
	 * and one that finds the half-open state past its timeout opens it again.
	 * @return whether the call is refused here; {@code false} leaves the decision to the
	 * fleet's hold and Resilience4j
	 */
	boolean holdsCall() {
		CircuitBreaker.State state = this.breaker.state();
		if (state != CircuitBreaker.State.OPEN && state != CircuitBreaker.State.HALF_OPEN) {
			return false;
		}
		FleetFollowing fleet = this.breaker.fleetMode();
		if (fleet != null && fleet.refusesCalls()) {
			// The fleet's own refusal notes the call's demand.
			return false;
		}
		if (state == CircuitBreaker.State.OPEN) {
			start();
		}
		else if (this.breaker.halfOpenExpired()) {
			synchronized (this.breaker) {
				if (this.breaker.state() == CircuitBreaker.State.HALF_OPEN && this.breaker.halfOpenExpired()) {
					this.breaker.move(CircuitBreaker.State.OPEN,
							Opening.of(Opening.Cause.CANARY, "canary: no outcome within the half-open timeout"));
				}
			}
		}
		return true;
	}

	/**
	 * The wake-up: the open time has ended, so send the trial; in fleet mode, ask the
	 * fleet for the probe lease instead (the pod that wins it sends the canary).
	 */
	void due() {
		if (this.breaker.state() != CircuitBreaker.State.OPEN) {
			return;
		}
		FleetFollowing fleet = this.breaker.fleetMode();
		if (fleet != null && fleet.refusesCalls()) {
			long now = this.breaker.clock().millis();
			if (now < fleet.untilMillis()) {
				wakeAt(fleet.untilMillis());
				return;
			}
			// Without calls no demand reaches the fleet; the canary asks for the lease,
			// and again after an open duration should the lease go elsewhere and its
			// holder vanish.
			fleet.want();
			wakeAt(now + this.breaker.settings().openDuration().toMillis());
			return;
		}
		start();
	}

	/**
	 * Go half-open and send the canary, unless one is in flight, the open time lasts, or
	 * the fleet holds the domain for another pod.
	 */
	void start() {
		long trial;
		synchronized (this.breaker) {
			if (isInFlight() || this.breaker.state() != CircuitBreaker.State.OPEN) {
				return;
			}
			FleetFollowing fleet = this.breaker.fleetMode();
			boolean granted = fleet != null && fleet.isTrialGranted();
			if ((fleet != null && fleet.isHeld()) ? !granted
					: this.breaker.clock().millis() < this.breaker.openUntilMillis()) {
				return;
			}
			this.breaker.move(CircuitBreaker.State.HALF_OPEN, Opening.noting(this.breaker.opening(),
					granted ? "this pod probes for the fleet: canary sent" : "canary sent as the trial"));
			this.breaker.acquireTrial();
			trial = begin();
		}
		this.probe.send(this.breaker, trial);
	}

	/**
	 * The canary's outcome, which is the trial's: an answer that passed closes the
	 * breaker, anything else opens it again with the grown open duration, as a failed
	 * trial does. Whatever the half-open calls setting, the one canary decides. An
	 * outcome of a trial already over is dropped.
	 */
	void answered(long trial, boolean passed, long nanos, String reason) {
		synchronized (this.breaker) {
			if (!settle(trial) || this.breaker.state() != CircuitBreaker.State.HALF_OPEN) {
				return;
			}
			this.breaker.moving(Opening.of(Opening.Cause.CANARY, "canary: " + reason), () -> {
				if (passed) {
					// The canary's own timeout judged its time: a passed answer is not
					// slow.
					this.breaker.onSuccess(Math.min(nanos, this.slowCallNanos));
					if (this.breaker.state() == CircuitBreaker.State.HALF_OPEN) {
						this.breaker.circuitBreaker().transitionToClosedState();
					}
				}
				else {
					this.breaker.onFailure(nanos, Verdict.of(Outcome.AVAILABILITY), new CanaryRejected(reason));
					if (this.breaker.state() == CircuitBreaker.State.HALF_OPEN) {
						this.breaker.circuitBreaker().transitionToOpenState();
					}
				}
			});
		}
	}

	/** What a failed canary trial records in the breaker. */
	static final class CanaryRejected extends RuntimeException {

		CanaryRejected(String reason) {
			super("canary: " + reason, null, false, false);
		}

	}

}
