package io.github.llmresilience.breaker.internal;

import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.Verdict;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import org.jspecify.annotations.Nullable;

/**
 * The breaker of one failure domain: a Resilience4j {@link CircuitBreaker} plus what it
 * does not tell: the moment an open breaker will let a trial through, whether a half-open
 * breaker has a trial permit left, and a safety limit on the half-open state.
 *
 * <p>
 * Resilience4j's half-open state waits for its trials forever when
 * {@code maxWaitDurationInHalfOpenState} is zero, and its own limit runs on a scheduler
 * thread of real time. A trial whose permit is never settled (the caller's thread died)
 * would wedge the domain. Here the limit is read from the injected clock when a call is
 * refused: a trial that has not reported within {@code half-open-timeout} counts as
 * failed and the breaker opens again.
 */
public final class Breaker {

	private final String domain;

	private final CircuitBreaker circuitBreaker;

	private final BreakerSettings settings;

	private final Clock clock;

	private final long halfOpenTimeoutMillis;

	private final long slowCallNanos;

	private final long slowFirstTokenNanos;

	/** Consecutive openings without a close; the open duration doubles with each. */
	private int openings;

	private volatile long openUntilMillis;

	private volatile long halfOpenSinceMillis;

	/**
	 * Trial permits a half-open breaker has left, mirroring Resilience4j's own count
	 * (which it does not expose): taken by an acquire, given back by a release or an
	 * ignored failure, reset by every transition.
	 */
	private final AtomicInteger freeTrials = new AtomicInteger();

	/** Where outcomes go in fleet mode; {@code null} when this pod decides alone. */
	private volatile @Nullable SharedOutcomes shared;

	/**
	 * Whether the fleet holds this domain open: no call goes through unless this pod was
	 * granted the fleet's trial.
	 */
	private volatile boolean fleetHeld;

	/** When the fleet lets a trial through, on this pod's clock; 0 when not held. */
	private volatile long fleetUntilMillis;

	/** Whether this pod holds the fleet's probe lease for its next call. */
	private volatile boolean trialGranted;

	/** Whether a call wanted this domain while the fleet held it open. */
	private volatile boolean demand;

	/** When a call last wanted this domain while the fleet held it open. */
	private volatile long lastDemandMillis;

	/**
	 * The time between the last two such calls: how long this pod takes to call again.
	 */
	private volatile long demandGapMillis;

	/** Why the next transition happens, when the fleet made it; read by its event. */
	private volatile @Nullable String fleetReason;

	/**
	 * The domain's canary, which sends the half-open trial itself; {@code null} when a
	 * call is the trial.
	 */
	private volatile @Nullable TrialProbe probe;

	/** The canary trial in flight, by number; 0 when none. Guarded by this. */
	private long probeInFlight;

	/** Canary trials sent so far. Guarded by this. */
	private long probeTrials;

	/** Why the next opening happens, when spend makes it; read by its event. */
	private volatile @Nullable String spendReason;

	/** Whether the opening under way is spend's; read when it lands. */
	private volatile boolean spendOpening;

	/** Whether spend opened this breaker, until it closes. */
	private volatile boolean openedOnSpend;

	Breaker(String domain, CircuitBreaker circuitBreaker, BreakerSettings settings, Clock clock) {
		this.domain = domain;
		this.circuitBreaker = circuitBreaker;
		this.settings = settings;
		this.clock = clock;
		this.halfOpenTimeoutMillis = settings.halfOpenTimeout().toMillis();
		this.slowCallNanos = settings.slowCallDuration().toNanos();
		this.slowFirstTokenNanos = settings.slowFirstTokenDuration().toNanos();
	}

	public String domain() {
		return this.domain;
	}

	/**
	 * The Resilience4j breaker underneath, for this library's tests and Resilience4j's
	 * own tooling; operators change state through the commands above.
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
		if (this.probe != null && probeHolds()) {
			return false;
		}
		if (this.fleetHeld) {
			if (!this.trialGranted) {
				long now = this.clock.millis();
				long last = this.lastDemandMillis;
				if (last != 0 && now > last) {
					this.demandGapMillis = now - last;
				}
				this.lastDemandMillis = now;
				this.demand = true;
				return false;
			}
			// This pod holds the fleet's probe lease: its trial goes through the local
			// half-open state, whose outcome is reported to the fleet.
			synchronized (this) {
				if (this.trialGranted && this.circuitBreaker.getState() == CircuitBreaker.State.OPEN) {
					this.fleetReason = "this pod probes for the fleet";
					this.circuitBreaker.transitionToHalfOpenState();
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
				this.freeTrials.decrementAndGet();
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

	private boolean halfOpenExpired() {
		return this.clock.millis() - this.halfOpenSinceMillis >= this.halfOpenTimeoutMillis;
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
		if (this.circuitBreaker.getState() == CircuitBreaker.State.HALF_OPEN
				&& this.freeTrials.incrementAndGet() > this.settings.halfOpenCalls()) {
			this.freeTrials.decrementAndGet();
		}
	}

	public void onSuccess(long nanos) {
		this.circuitBreaker.onSuccess(nanos, TimeUnit.NANOSECONDS);
		SharedOutcomes shared = this.shared;
		if (shared != null) {
			shared.record(false, nanos > this.slowCallNanos);
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
		SharedOutcomes shared = this.shared;
		if (shared != null) {
			shared.record(false, firstTokenNanos >= this.slowFirstTokenNanos);
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
		SharedOutcomes shared = this.shared;
		if (shared != null) {
			shared.record(verdict.countsAsFailure(), nanos > this.slowCallNanos);
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
		if (this.fleetHeld && !this.trialGranted) {
			return false;
		}
		if (this.probe != null && isOpenOrHalfOpen()) {
			return false;
		}
		return switch (this.circuitBreaker.getState()) {
			case OPEN -> this.clock.millis() > this.openUntilMillis;
			case FORCED_OPEN -> false;
			case HALF_OPEN -> this.freeTrials.get() > 0;
			default -> true;
		};
	}

	/** Whether an operator holds this breaker open. */
	public boolean isForcedOpen() {
		return this.circuitBreaker.getState() == CircuitBreaker.State.FORCED_OPEN;
	}

	synchronized void opened() {
		this.openings++;
		// Following the fleet, the fleet's end of the open time; else this pod's own.
		long now = this.clock.millis();
		boolean fleetEnd = this.fleetHeld && this.fleetUntilMillis > now;
		this.openUntilMillis = fleetEnd ? this.fleetUntilMillis
				: now + this.settings.openDurationAfter(this.openings).toMillis();
		SharedOutcomes shared = this.shared;
		if (!fleetEnd && shared != null) {
			if (!this.fleetHeld) {
				// News to the fleet, which judges the domain at once.
				shared.opened();
			}
			if (shared.leasesTrials()) {
				// An opening of this pod's own, in a fleet that answers: its trial waits
				// for the fleet's lease like any other, so that pods whose breakers open
				// before the fleet's do not all probe the domain at the same instant.
				this.fleetHeld = true;
				this.fleetUntilMillis = this.openUntilMillis;
			}
		}
		endTrial(false);
		this.probeInFlight = 0;
		TrialProbe probe = this.probe;
		if (probe != null) {
			probe.wakeAt(this, this.openUntilMillis);
		}
		this.openedOnSpend = this.spendOpening;
		this.spendOpening = false;
	}

	synchronized void halfOpened() {
		this.halfOpenSinceMillis = this.clock.millis();
		this.freeTrials.set(this.settings.halfOpenCalls());
	}

	synchronized void closed() {
		this.openings = 0;
		this.openedOnSpend = false;
		endTrial(true);
		this.fleetHeld = false;
		this.probeInFlight = 0;
	}

	/** A granted trial ended (or the breaker left the fleet's open state another way). */
	private void endTrial(boolean closed) {
		if (this.trialGranted) {
			this.trialGranted = false;
			SharedOutcomes shared = this.shared;
			if (shared != null) {
				shared.trialEnded(closed);
			}
		}
	}

	/** Why the transition being published happened, when the fleet made it. */
	@Nullable String takeFleetReason() {
		String reason = this.fleetReason;
		this.fleetReason = null;
		return reason;
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
		if (this.fleetHeld || this.circuitBreaker.getState() != CircuitBreaker.State.CLOSED) {
			return false;
		}
		this.spendReason = "spend: " + detail;
		this.spendOpening = true;
		try {
			this.circuitBreaker.transitionToOpenState();
		}
		finally {
			// Read by the transition's event; never left for a later transition.
			this.spendReason = null;
			this.spendOpening = false;
		}
		return true;
	}

	/** Whether spend opened this breaker and it has not closed since. */
	public boolean isOpenOnSpend() {
		return this.openedOnSpend;
	}

	/** Why the transition being published happens, when spend makes it. */
	@Nullable String takeSpendReason() {
		String reason = this.spendReason;
		this.spendReason = null;
		return reason;
	}

	// Fleet mode: the fleet's thread makes the local breaker follow the fleet.

	/** Send this breaker's outcomes to the fleet from now on. */
	public void share(SharedOutcomes shared) {
		this.shared = shared;
	}

	/**
	 * The fleet holds the domain open until the given moment of this pod's clock: open
	 * the local breaker if it is not, and refuse every call but a granted trial.
	 * @param untilMillis when the fleet lets a trial through
	 * @param reason why the fleet opened it, for the event
	 */
	public synchronized void followOpen(long untilMillis, String reason) {
		this.fleetHeld = true;
		this.fleetUntilMillis = untilMillis;
		CircuitBreaker.State state = this.circuitBreaker.getState();
		if (state != CircuitBreaker.State.OPEN && !(state == CircuitBreaker.State.HALF_OPEN && this.trialGranted)) {
			this.fleetReason = "fleet: " + reason;
			this.circuitBreaker.transitionToOpenState();
		}
		// The fleet's end, whatever the opening made of an end already past.
		this.fleetUntilMillis = untilMillis;
		this.openUntilMillis = untilMillis;
		TrialProbe probe = this.probe;
		if (probe != null) {
			probe.wakeAt(this, untilMillis);
		}
	}

	/** The fleet closed the domain: close the local breaker too. */
	public synchronized void followClosed(String reason) {
		this.fleetHeld = false;
		this.fleetUntilMillis = 0;
		this.trialGranted = false;
		if (this.circuitBreaker.getState() != CircuitBreaker.State.CLOSED) {
			this.fleetReason = "fleet: " + reason;
			this.circuitBreaker.transitionToClosedState();
		}
	}

	/** An operator held the domain open on some pod. */
	public synchronized void followForcedOpen() {
		this.fleetHeld = false;
		this.trialGranted = false;
		if (this.circuitBreaker.getState() != CircuitBreaker.State.FORCED_OPEN) {
			this.fleetReason = "fleet: by an operator";
			this.circuitBreaker.transitionToForcedOpenState();
		}
	}

	/** An operator disabled the domain's breaker on some pod. */
	public synchronized void followDisabled() {
		this.fleetHeld = false;
		this.trialGranted = false;
		if (this.circuitBreaker.getState() != CircuitBreaker.State.DISABLED) {
			this.fleetReason = "fleet: by an operator";
			this.circuitBreaker.transitionToDisabledState();
		}
	}

	/**
	 * The fleet's store is away: this pod decides alone again. A domain the fleet held
	 * open stays open here until the fleet's end, then takes its own trials.
	 */
	public synchronized void leaveFleet() {
		this.fleetHeld = false;
	}

	/** This pod won the fleet's probe lease: its next call is the domain's trial. */
	public void grantTrial() {
		if (this.fleetHeld) {
			this.trialGranted = true;
			if (this.probe != null) {
				// The canary is the trial: this pod sends it now, whether or not a call
				// comes.
				startProbe();
			}
		}
	}

	/**
	 * Give the lease back unused: no call came for the trial.
	 * @return whether a trial was granted and not yet started
	 */
	public synchronized boolean revokeTrial() {
		if (this.trialGranted && this.circuitBreaker.getState() == CircuitBreaker.State.OPEN) {
			this.trialGranted = false;
			return true;
		}
		return false;
	}

	/** Whether this pod holds the fleet's probe lease. */
	public boolean isTrialGranted() {
		return this.trialGranted;
	}

	/** Whether the fleet holds this domain open. */
	public boolean isFleetHeld() {
		return this.fleetHeld;
	}

	/**
	 * How long this pod took between its last two calls that wanted this domain while the
	 * fleet held it open; 0 before two such calls. A pod that calls rarely needs a
	 * granted trial kept for longer before it is given back unused.
	 */
	public long demandGapMillis() {
		return this.demandGapMillis;
	}

	/** Whether a call wanted this domain since the last look, while the fleet held it. */
	public boolean takeDemand() {
		boolean demand = this.demand;
		this.demand = false;
		return demand;
	}

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
			this.probe = probe;
			if (this.circuitBreaker.getState() == CircuitBreaker.State.OPEN) {
				probe.wakeAt(this, this.openUntilMillis);
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
		if (this.probe != probe) {
			return;
		}
		this.probe = null;
		if (this.probeInFlight != 0 && this.circuitBreaker.getState() == CircuitBreaker.State.HALF_OPEN) {
			release();
		}
		this.probeInFlight = 0;
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
		TrialProbe probe = this.probe;
		if (probe == null || this.circuitBreaker.getState() != CircuitBreaker.State.OPEN) {
			return;
		}
		long now = this.clock.millis();
		if (this.fleetHeld && !this.trialGranted) {
			if (now < this.fleetUntilMillis) {
				probe.wakeAt(this, this.fleetUntilMillis);
				return;
			}
			// Without calls no demand reaches the fleet; the canary asks for the lease,
			// and again after an open duration should the lease go elsewhere and its
			// holder vanish.
			this.demand = true;
			probe.wakeAt(this, now + this.settings.openDuration().toMillis());
			return;
		}
		startProbe();
	}

	/**
	 * With a canary, an open or half-open breaker refuses every call; the call that finds
	 * the open time over starts the canary (should its wake-up have been missed), and one
	 * that finds the half-open state past its timeout opens it again.
	 * @return whether the call is refused here; {@code false} leaves the decision to the
	 * fleet's hold and Resilience4j
	 */
	private boolean probeHolds() {
		CircuitBreaker.State state = this.circuitBreaker.getState();
		if (state != CircuitBreaker.State.OPEN && state != CircuitBreaker.State.HALF_OPEN) {
			return false;
		}
		if (this.fleetHeld && !this.trialGranted) {
			// The fleet's own refusal notes the call's demand.
			return false;
		}
		if (state == CircuitBreaker.State.OPEN) {
			startProbe();
		}
		else if (halfOpenExpired()) {
			synchronized (this) {
				if (this.circuitBreaker.getState() == CircuitBreaker.State.HALF_OPEN && halfOpenExpired()) {
					this.fleetReason = "canary: no outcome within the half-open timeout";
					this.circuitBreaker.transitionToOpenState();
				}
			}
		}
		return true;
	}

	private boolean isOpenOrHalfOpen() {
		CircuitBreaker.State state = this.circuitBreaker.getState();
		return state == CircuitBreaker.State.OPEN || state == CircuitBreaker.State.HALF_OPEN;
	}

	/**
	 * Go half-open and send the canary, unless one is in flight, the open time lasts, or
	 * the fleet holds the domain for another pod.
	 */
	private void startProbe() {
		TrialProbe probe = this.probe;
		long trial;
		synchronized (this) {
			if (probe == null || this.probeInFlight != 0
					|| this.circuitBreaker.getState() != CircuitBreaker.State.OPEN) {
				return;
			}
			if (this.fleetHeld ? !this.trialGranted : this.clock.millis() < this.openUntilMillis) {
				return;
			}
			// The reason field is the one the next transition's event reads, whoever set
			// it.
			this.fleetReason = this.trialGranted ? "this pod probes for the fleet: canary sent"
					: "canary sent as the trial";
			this.circuitBreaker.transitionToHalfOpenState();
			if (this.circuitBreaker.tryAcquirePermission()) {
				this.freeTrials.decrementAndGet();
			}
			trial = ++this.probeTrials;
			this.probeInFlight = trial;
		}
		probe.send(this, trial);
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
		synchronized (this) {
			if (trial != this.probeInFlight) {
				return;
			}
			this.probeInFlight = 0;
			if (this.circuitBreaker.getState() != CircuitBreaker.State.HALF_OPEN) {
				return;
			}
			this.fleetReason = "canary: " + reason;
			if (passed) {
				// The canary's own timeout judged its time: a passed answer is not slow.
				onSuccess(Math.min(nanos, this.slowCallNanos));
				if (this.circuitBreaker.getState() == CircuitBreaker.State.HALF_OPEN) {
					this.circuitBreaker.transitionToClosedState();
				}
			}
			else {
				onFailure(nanos, Verdict.of(Outcome.AVAILABILITY), new CanaryRejected(reason));
				if (this.circuitBreaker.getState() == CircuitBreaker.State.HALF_OPEN) {
					this.circuitBreaker.transitionToOpenState();
				}
			}
			this.fleetReason = null;
		}
	}

	/** What a failed canary trial records in the breaker. */
	static final class CanaryRejected extends RuntimeException {

		CanaryRejected(String reason) {
			super("canary: " + reason, null, false, false);
		}

	}

	@Override
	public String toString() {
		return "Breaker[" + this.domain + " " + state() + "]";
	}

}
