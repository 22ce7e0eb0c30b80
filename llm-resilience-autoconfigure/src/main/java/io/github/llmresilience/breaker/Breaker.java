package io.github.llmresilience.breaker;

import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import io.github.llmresilience.classify.Verdict;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import org.jspecify.annotations.Nullable;

/**
 * The breaker of one failure domain: a Resilience4j {@link CircuitBreaker} plus what it
 * does not tell: the moment an open breaker will let a trial through, whether a half-open
 * breaker has a trial permit left ({@link HalfOpenTrials}), a safety limit on the
 * half-open state, and why it opened ({@link Opening}).
 *
 * <p>
 * Its modes are collaborators, as Resilience4j gives each state its own class: the
 * fleet's hold and trial lease ({@link FleetFollowing}), spend's opening
 * ({@link SpendTrip}) and the canary's trial ({@link ProbeLease}). A mode that is off has
 * no collaborator, so a call through a breaker of its own pays for a {@code null} check
 * and no lock. The breaker consults them when a call asks and settles them when
 * Resilience4j moves.
 *
 * <p>
 * A trial whose permit is never settled (the caller's thread died) would wedge the
 * domain: a trial that has not reported within {@code half-open-timeout}, read from the
 * injected clock when a call is refused, counts as failed and the breaker opens again.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public final class Breaker {

	private final String domain;

	/** Resilience4j's breaker, which tells its changes itself. */
	private final PublishingCircuitBreaker circuitBreaker;

	private final BreakerSettings settings;

	private final Clock clock;

	private final long slowCallNanos;

	private final long slowFirstTokenNanos;

	private final HalfOpenTrials trials;

	/** Consecutive openings without a close; the open duration doubles with each. */
	private int openings;

	private volatile long openUntilMillis;

	/** Why the breaker is open, or is being moved by a mode; {@code null} when closed. */
	private volatile @Nullable Opening opening;

	/** The fleet mode; {@code null} while this pod decides alone. */
	private volatile @Nullable FleetFollowing fleet;

	/** The canary mode; {@code null} when a call is the trial. */
	private volatile @Nullable ProbeLease probe;

	/**
	 * @param resilience4j the Resilience4j breaker, which only this one moves from now on
	 * @param listener who hears of its changes, told under this breaker's lock
	 */
	Breaker(String domain, CircuitBreaker resilience4j, BreakerSettings settings, Clock clock,
			Function<Breaker, PublishingCircuitBreaker.Listener> listener) {
		this.domain = domain;
		this.circuitBreaker = new PublishingCircuitBreaker(resilience4j, this, listener.apply(this));
		this.settings = settings;
		this.clock = clock;
		this.slowCallNanos = settings.slowCallDuration().toNanos();
		this.slowFirstTokenNanos = settings.slowFirstTokenDuration().toNanos();
		this.trials = new HalfOpenTrials(settings.halfOpenCalls(), settings.halfOpenTimeout().toMillis());
	}

	public String domain() {
		return this.domain;
	}

	/**
	 * The Resilience4j breaker underneath, for this library's tests and Resilience4j's
	 * own tooling; operators change state through the commands below. Its transitions and
	 * resets are told through this breaker however it is moved.
	 */
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
		ProbeLease probe = this.probe;
		if (probe != null && probe.holdsCall()) {
			return false;
		}
		FleetFollowing fleet = this.fleet;
		if (fleet != null && fleet.isHeld()) {
			if (fleet.refuse()) {
				return false;
			}
			// This pod holds the fleet's probe lease: its trial goes through the local
			// half-open state, whose outcome is reported to the fleet.
			synchronized (this) {
				if (fleet.isTrialGranted() && state() == CircuitBreaker.State.OPEN) {
					move(CircuitBreaker.State.HALF_OPEN, Opening.noting(this.opening, "this pod probes for the fleet"));
				}
			}
		}
		if (this.circuitBreaker.tryAcquirePermission()) {
			if (this.circuitBreaker.getState() == CircuitBreaker.State.HALF_OPEN) {
				if (this.probe != null) {
					// The canary went half-open meanwhile: its trial is the only one.
					this.circuitBreaker.releasePermission();
					return false;
				}
				this.trials.take();
			}
			return true;
		}
		if (this.circuitBreaker.getState() == CircuitBreaker.State.HALF_OPEN && halfOpenExpired()) {
			// A trial never reported: count it as failed rather than wait for it forever.
			synchronized (this) {
				if (this.circuitBreaker.getState() == CircuitBreaker.State.HALF_OPEN && halfOpenExpired()) {
					this.circuitBreaker.transitionToOpenState();
				}
			}
		}
		return false;
	}

	/**
	 * Give back a permit unused: the call was cancelled, or was not the provider's to
	 * judge.
	 */
	public void release() {
		this.circuitBreaker.releasePermission();
		trialReturned();
	}

	/** A permit Resilience4j took back: a half-open breaker has one more trial free. */
	private void trialReturned() {
		if (this.circuitBreaker.getState() == CircuitBreaker.State.HALF_OPEN) {
			this.trials.giveBack();
		}
	}

	public void onSuccess(long nanos) {
		this.circuitBreaker.onSuccess(nanos, TimeUnit.NANOSECONDS);
		FleetFollowing fleet = this.fleet;
		if (fleet != null) {
			fleet.record(false, nanos > this.slowCallNanos);
		}
	}

	/**
	 * Record a stream that reached its first element: it is slow when its time to first
	 * token reaches {@code slow-first-token-duration}. Resilience4j knows one slow-call
	 * threshold, so the recorded duration is raised to it for a slow stream and kept
	 * below it for a fast one.
	 * @param firstTokenNanos the time to the stream's first element
	 */
	public void onStreamSuccess(long firstTokenNanos) {
		// Resilience4j counts a call slow when strictly longer than its threshold,
		// compared in its own unit: a millisecond past it is slow, a millisecond short is
		// not.
		long recorded = (firstTokenNanos >= this.slowFirstTokenNanos)
				? Math.max(firstTokenNanos, this.slowCallNanos + 1_000_000)
				: Math.max(0, Math.min(firstTokenNanos, this.slowCallNanos - 1_000_000));
		this.circuitBreaker.onSuccess(recorded, TimeUnit.NANOSECONDS);
		FleetFollowing fleet = this.fleet;
		if (fleet != null) {
			fleet.record(false, firstTokenNanos >= this.slowFirstTokenNanos);
		}
	}

	/**
	 * Record a classified failure: the breaker's predicates count it as a failure,
	 * success or nothing, as the verdict says. An ignored failure gives its permit back,
	 * so a half-open breaker has its trial free again.
	 */
	public void onFailure(long nanos, Verdict verdict, Throwable cause) {
		this.circuitBreaker.onError(nanos, TimeUnit.NANOSECONDS, new ClassifiedFailure(verdict, cause));
		if (Breakers.ignores(verdict.outcome())) {
			// Resilience4j released the permit of an ignored error itself.
			trialReturned();
			return;
		}
		FleetFollowing fleet = this.fleet;
		if (fleet != null) {
			fleet.record(verdict.countsAsFailure(), nanos > this.slowCallNanos);
		}
	}

	/**
	 * When this breaker may let a call through: the end of the open duration when open
	 * (or {@code now} when that has passed: never a moment already past); {@code null}
	 * when forced open (an operator holds it, so no time can be told); {@code now}
	 * otherwise. A half-open breaker whose trials are all taken says {@code now} too, as
	 * its trial ends within an attempt, but is not {@linkplain #isUsable() usable}.
	 * @param now the caller's reading of the clock, so that a closed breaker adds no
	 * later one
	 */
	public @Nullable Instant availableAt(Instant now) {
		return switch (this.circuitBreaker.getState()) {
			case OPEN -> {
				Instant openUntil = Instant.ofEpochMilli(this.openUntilMillis);
				yield openUntil.isAfter(now) ? openUntil : now;
			}
			case FORCED_OPEN -> null;
			default -> now;
		};
	}

	/**
	 * When this breaker may let a call through, as {@link #availableAt(Instant)} with the
	 * clock read now; {@link Instant#MAX} when forced open.
	 */
	public Instant availableAt() {
		Instant at = availableAt(this.clock.instant());
		return (at != null) ? at : Instant.MAX;
	}

	/** Whether a call could be let through now, without taking a permit. */
	public boolean isUsable() {
		FleetFollowing fleet = this.fleet;
		if (fleet != null && fleet.refusesCalls()) {
			return false;
		}
		if (this.probe != null && isOpenOrHalfOpen()) {
			return false;
		}
		return switch (this.circuitBreaker.getState()) {
			case OPEN -> this.clock.millis() > this.openUntilMillis;
			case FORCED_OPEN -> false;
			case HALF_OPEN -> this.trials.anyFree();
			default -> true;
		};
	}

	/** Whether an operator holds this breaker open. */
	public boolean isForcedOpen() {
		return this.circuitBreaker.getState() == CircuitBreaker.State.FORCED_OPEN;
	}

	private boolean isOpenOrHalfOpen() {
		CircuitBreaker.State state = this.circuitBreaker.getState();
		return state == CircuitBreaker.State.OPEN || state == CircuitBreaker.State.HALF_OPEN;
	}

	// Transitions: a mode moves the breaker saying why; Resilience4j's event settles the
	// modes.

	/**
	 * Move the breaker for a mode, its event saying why. Guarded by this.
	 * @param change the opening, or the note of a change that is not one
	 */
	void move(CircuitBreaker.State to, Opening change) {
		moving(change, () -> {
			switch (to) {
				case OPEN -> this.circuitBreaker.transitionToOpenState();
				case HALF_OPEN -> this.circuitBreaker.transitionToHalfOpenState();
				case CLOSED -> this.circuitBreaker.transitionToClosedState();
				case FORCED_OPEN -> this.circuitBreaker.transitionToForcedOpenState();
				default -> this.circuitBreaker.transitionToDisabledState();
			}
		});
	}

	/**
	 * Do for a mode what may move the breaker (a transition, its own trial's outcome),
	 * the event of the change saying why. Guarded by this.
	 */
	void moving(Opening change, Runnable moves) {
		// A change a call made and has not told yet is not this mode's.
		this.circuitBreaker.tellChanges();
		Opening before = this.opening;
		this.opening = change;
		try {
			moves.run();
		}
		finally {
			if (this.opening == change) {
				// No event told it: nothing moved, and no later change may tell it.
				this.opening = before;
			}
		}
	}

	/**
	 * Resilience4j moved the breaker: settle the modes.
	 * @return why, when a mode moved it; {@code null} when its rates did
	 */
	synchronized @Nullable String entered(CircuitBreaker.State to) {
		Opening change = this.opening;
		boolean byMode = change != null && change.untold();
		switch (to) {
			case OPEN -> {
				opened();
				this.opening = byMode ? change.told() : Opening.RATES;
			}
			case HALF_OPEN -> {
				this.trials.began(this.clock.millis());
				if (byMode) {
					this.opening = change.told();
				}
			}
			case CLOSED -> closed();
			default -> {
				if (byMode) {
					this.opening = change.told();
				}
			}
		}
		return byMode ? change.note() : null;
	}

	private void opened() {
		this.openings++;
		// Following the fleet, the fleet's end of the open time; else this pod's own.
		long now = this.clock.millis();
		FleetFollowing fleet = this.fleet;
		long until = (fleet != null) ? fleet.endOfOpening(now) : 0;
		if (until == 0) {
			until = now + this.settings.openDurationAfter(this.openings).toMillis();
			if (fleet != null) {
				fleet.openedHere(until);
			}
		}
		this.openUntilMillis = until;
		if (fleet != null) {
			fleet.endTrial(false);
		}
		ProbeLease probe = this.probe;
		if (probe != null) {
			probe.end();
			probe.wakeAt(until);
		}
	}

	/** Closed or reset: the open duration starts over and the modes let go. */
	synchronized void closed() {
		this.openings = 0;
		this.opening = null;
		FleetFollowing fleet = this.fleet;
		if (fleet != null) {
			fleet.closed();
		}
		ProbeLease probe = this.probe;
		if (probe != null) {
			probe.end();
		}
	}

	// Spend: a runaway bill opens the breaker like a failure rate would.

	/**
	 * Open a closed breaker because its domain's spend per call ran away. It stays open
	 * for the open duration, then lets the usual half-open trial through, which closes
	 * it; an open, half-open, forced-open or disabled breaker, or one the fleet holds, is
	 * left as it is.
	 * @param detail the spend figures, for the event
	 * @return whether this call opened it
	 */
	public synchronized boolean openOnSpend(String detail) {
		if (!SpendTrip.mayOpen(state(), isFleetHeld())) {
			return false;
		}
		move(CircuitBreaker.State.OPEN, SpendTrip.opening(detail));
		return true;
	}

	/** Whether spend opened this breaker and it has not closed since. */
	public boolean isOpenOnSpend() {
		return SpendTrip.opened(this.opening);
	}

	// Fleet mode: the fleet's thread makes the local breaker follow the fleet.

	/** The fleet mode, begun on the fleet's first word. */
	private synchronized FleetFollowing fleet() {
		FleetFollowing fleet = this.fleet;
		if (fleet == null) {
			fleet = new FleetFollowing(this.clock);
			this.fleet = fleet;
		}
		return fleet;
	}

	/** Send this breaker's outcomes to the fleet from now on. */
	public void share(SharedOutcomes shared) {
		fleet().share(shared);
	}

	/**
	 * The fleet holds the domain open until the given moment of this pod's clock: open
	 * the local breaker if it is not, and refuse every call but a granted trial.
	 * @param untilMillis when the fleet lets a trial through
	 * @param reason why the fleet opened it, for the event
	 */
	public synchronized void followOpen(long untilMillis, String reason) {
		FleetFollowing fleet = fleet();
		fleet.hold(untilMillis);
		CircuitBreaker.State state = state();
		if (state != CircuitBreaker.State.OPEN
				&& !(state == CircuitBreaker.State.HALF_OPEN && fleet.isTrialGranted())) {
			move(CircuitBreaker.State.OPEN, Opening.of(Opening.Cause.FLEET, "fleet: " + reason));
		}
		// The fleet's end, whatever the opening made of an end already past.
		fleet.hold(untilMillis);
		this.openUntilMillis = untilMillis;
		ProbeLease probe = this.probe;
		if (probe != null) {
			probe.wakeAt(untilMillis);
		}
	}

	/** The fleet closed the domain: close the local breaker too. */
	public synchronized void followClosed(String reason) {
		fleet().release();
		if (state() != CircuitBreaker.State.CLOSED) {
			move(CircuitBreaker.State.CLOSED, Opening.noting(this.opening, "fleet: " + reason));
		}
	}

	/** An operator held the domain open on some pod. */
	public synchronized void followForcedOpen() {
		followOperator(CircuitBreaker.State.FORCED_OPEN);
	}

	/** An operator disabled the domain's breaker on some pod. */
	public synchronized void followDisabled() {
		followOperator(CircuitBreaker.State.DISABLED);
	}

	private void followOperator(CircuitBreaker.State to) {
		fleet().yieldToOperator();
		if (state() != to) {
			move(to, Opening.noting(this.opening, "fleet: by an operator"));
		}
	}

	/**
	 * The fleet's store is away: this pod decides alone again. A domain the fleet held
	 * open stays open here until the fleet's end, then takes its own trials.
	 */
	public synchronized void leaveFleet() {
		FleetFollowing fleet = this.fleet;
		if (fleet != null) {
			fleet.leave();
		}
	}

	/** This pod won the fleet's probe lease: its next call is the domain's trial. */
	public void grantTrial() {
		FleetFollowing fleet = this.fleet;
		ProbeLease probe = this.probe;
		if (fleet != null && fleet.grant() && probe != null) {
			// The canary is the trial: this pod sends it now, whether or not a call
			// comes.
			probe.start();
		}
	}

	/**
	 * Give the lease back unused: no call came for the trial.
	 * @return whether a trial was granted and not yet started
	 */
	public synchronized boolean revokeTrial() {
		FleetFollowing fleet = this.fleet;
		if (fleet != null && fleet.isTrialGranted() && state() == CircuitBreaker.State.OPEN) {
			fleet.revoke();
			return true;
		}
		return false;
	}

	/** Whether this pod holds the fleet's probe lease. */
	public boolean isTrialGranted() {
		FleetFollowing fleet = this.fleet;
		return fleet != null && fleet.isTrialGranted();
	}

	/** Whether the fleet holds this domain open. */
	public boolean isFleetHeld() {
		FleetFollowing fleet = this.fleet;
		return fleet != null && fleet.isHeld();
	}

	/**
	 * How long this pod took between its last two calls that wanted this domain while the
	 * fleet held it open; 0 before two such calls. A pod that calls rarely needs a
	 * granted trial kept for longer before it is given back unused.
	 */
	public long demandGapMillis() {
		FleetFollowing fleet = this.fleet;
		return (fleet != null) ? fleet.demandGapMillis() : 0;
	}

	/** Whether a call wanted this domain since the last look, while the fleet held it. */
	public boolean takeDemand() {
		FleetFollowing fleet = this.fleet;
		return fleet != null && fleet.takeDemand();
	}

	// Operators' commands.

	/** Hold it open until an operator closes or resets it (an operator's command). */
	public void forceOpen() {
		this.circuitBreaker.transitionToForcedOpenState();
	}

	/** Close it, keeping its recorded calls (an operator's command). */
	public void close() {
		this.circuitBreaker.transitionToClosedState();
	}

	/** Close it and forget its recorded calls (an operator's command). */
	public void reset() {
		this.circuitBreaker.reset();
	}

	/**
	 * Let every call through and record nothing, until closed or reset (an operator's
	 * command).
	 */
	public void disable() {
		this.circuitBreaker.transitionToDisabledState();
	}

	// Canary: the domain's own request is the half-open trial, sent off the call path.

	/**
	 * Let the canary send this domain's half-open trials: from now on no call goes
	 * through while the breaker is open or half-open. The first probe given stays (one
	 * canary per failure domain).
	 */
	public synchronized void useProbe(TrialProbe probe) {
		if (this.probe == null) {
			ProbeLease lease = new ProbeLease(this, probe);
			this.probe = lease;
			if (state() == CircuitBreaker.State.OPEN) {
				lease.wakeAt(this.openUntilMillis);
			}
		}
	}

	/**
	 * Stop the canary: it cannot judge this domain (the provider refuses its own
	 * request), so calls are the trials from now on, as without one. A canary trial in
	 * flight gives its permit back: the breaker stays half-open and the next call is its
	 * trial.
	 * @param probe the canary that stops; another is left in place
	 */
	public synchronized void dropProbe(TrialProbe probe) {
		ProbeLease lease = this.probe;
		if (lease != null && lease.probe() == probe) {
			this.probe = null;
			lease.drop();
		}
	}

	/** Whether a canary sends this domain's trials. */
	public boolean hasProbe() {
		return this.probe != null;
	}

	/**
	 * The canary's wake-up: the open time has ended, so send the trial; in fleet mode,
	 * ask the fleet for the probe lease instead (the pod that wins it sends the canary).
	 */
	public void probeDue() {
		ProbeLease probe = this.probe;
		if (probe != null) {
			probe.due();
		}
	}

	/**
	 * The canary's outcome, which is the trial's: an answer that passed closes the
	 * breaker, anything else opens it again with the grown open duration, as a failed
	 * trial does. Whatever the half-open calls setting, the one canary decides. An
	 * outcome of a trial already over (an operator acted, the half-open timeout passed)
	 * is dropped.
	 * @param trial the number {@link TrialProbe#send(Breaker, long)} was given
	 * @param passed whether the answer came and passed the judgement
	 * @param nanos how long the canary took
	 * @param reason what the canary saw, for the transition's event
	 */
	public void probeAnswered(long trial, boolean passed, long nanos, String reason) {
		ProbeLease probe = this.probe;
		if (probe != null) {
			probe.answered(trial, passed, nanos, reason);
		}
	}

	// What the modes read and do through the breaker.

	@Nullable FleetFollowing fleetMode() {
		return this.fleet;
	}

	@Nullable Opening opening() {
		return this.opening;
	}

	Clock clock() {
		return this.clock;
	}

	long openUntilMillis() {
		return this.openUntilMillis;
	}

	boolean halfOpenExpired() {
		return this.trials.expired(this.clock.millis());
	}

	/** Take a half-open trial's permit off the call path (the canary's). */
	void acquireTrial() {
		if (this.circuitBreaker.tryAcquirePermission()) {
			this.trials.take();
		}
	}

	@Override
	public String toString() {
		return "Breaker[" + this.domain + " " + state() + "]";
	}

}
