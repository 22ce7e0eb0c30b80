package io.github.llmresilience.breaker;

import java.time.Clock;

import org.jspecify.annotations.Nullable;

/**
 * A breaker's fleet mode: what the fleet says of the failure domain (held open until a
 * moment, the trial granted to this pod), where this pod's outcomes go, and the calls
 * that wanted the domain meanwhile. The fleet's thread writes it through the breaker's
 * {@code follow} methods; a call reads it without a lock. A breaker whose pod decides
 * alone has none.
 */
final class FleetFollowing {

	private final Clock clock;

	/** Where outcomes go; {@code null} until the fleet's sync shares them. */
	private volatile @Nullable SharedOutcomes shared;

	/**
	 * Whether the fleet holds this domain open: no call goes through unless this pod was
	 * granted the fleet's trial.
	 */
	private volatile boolean held;

	/** When the fleet lets a trial through, on this pod's clock; 0 when not held. */
	private volatile long untilMillis;

	/** Whether this pod holds the fleet's probe lease for its next call. */
	private volatile boolean granted;

	/** Whether a call wanted this domain while the fleet held it open. */
	private volatile boolean demand;

	/** When a call last wanted this domain while the fleet held it open. */
	private volatile long lastDemandMillis;

	/**
	 * The time between the last two such calls: how long this pod takes to call again.
	 */
	private volatile long demandGapMillis;

	FleetFollowing(Clock clock) {
		this.clock = clock;
	}

	void share(SharedOutcomes shared) {
		this.shared = shared;
	}

	/** Whether the fleet holds the domain open. */
	boolean isHeld() {
		return this.held;
	}

	/** Whether this pod holds the fleet's probe lease. */
	boolean isTrialGranted() {
		return this.granted;
	}

	/** Whether the fleet turns every call away: held open, the trial not this pod's. */
	boolean refusesCalls() {
		return this.held && !this.granted;
	}

	/**
	 * A call wants the held domain: refused, and its demand noted for the fleet, unless
	 * this pod holds the trial.
	 * @return whether the call is refused
	 */
	boolean refuse() {
		if (this.granted) {
			return false;
		}
		long now = this.clock.millis();
		long last = this.lastDemandMillis;
		if (last != 0 && now > last) {
			this.demandGapMillis = now - last;
		}
		this.lastDemandMillis = now;
		this.demand = true;
		return true;
	}

	/** The canary wants the held domain's trial, with no call to note. */
	void want() {
		this.demand = true;
	}

	/** Whether a call wanted the domain since the last look, while the fleet held it. */
	boolean takeDemand() {
		boolean demand = this.demand;
		this.demand = false;
		return demand;
	}

	/**
	 * How long this pod took between its last two calls that wanted the held domain; 0
	 * before two such calls.
	 */
	long demandGapMillis() {
		return this.demandGapMillis;
	}

	/** One call that counts, for the fleet. */
	void record(boolean failure, boolean slow) {
		SharedOutcomes shared = this.shared;
		if (shared != null) {
			shared.record(failure, slow);
		}
	}

	/** When the fleet lets a trial through, on this pod's clock. */
	long untilMillis() {
		return this.untilMillis;
	}

	/**
	 * The end of an opening at {@code now} when the fleet sets it (it holds the domain
	 * open until later); 0 when this pod sets its own.
	 */
	long endOfOpening(long now) {
		long until = this.untilMillis;
		return (this.held && until > now) ? until : 0;
	}

	/**
	 * The breaker opened on this pod's own calls, until the given moment: news to the
	 * fleet when it did not hold the domain; and in a fleet that hands out trials, this
	 * pod's trial waits for the fleet's lease like any other, so that pods whose breakers
	 * open before the fleet's do not all probe the domain at the same instant.
	 */
	void openedHere(long untilMillis) {
		SharedOutcomes shared = this.shared;
		if (shared == null) {
			return;
		}
		if (!this.held) {
			shared.opened();
		}
		if (shared.leasesTrials()) {
			this.held = true;
			this.untilMillis = untilMillis;
		}
	}

	/** The fleet holds the domain open until the given moment of this pod's clock. */
	void hold(long untilMillis) {
		this.held = true;
		this.untilMillis = untilMillis;
	}

	/** The fleet closed the domain. */
	void release() {
		this.held = false;
		this.untilMillis = 0;
		this.granted = false;
	}

	/** An operator holds or disabled the domain: the fleet's hold and trial are over. */
	void yieldToOperator() {
		this.held = false;
		this.granted = false;
	}

	/** The fleet's store is away: this pod decides alone again. */
	void leave() {
		this.held = false;
	}

	/**
	 * This pod won the fleet's probe lease.
	 * @return whether it was granted (the fleet holds the domain)
	 */
	boolean grant() {
		if (this.held) {
			this.granted = true;
			return true;
		}
		return false;
	}

	/** Give the lease back; the breaker says when it is still unused. */
	void revoke() {
		this.granted = false;
	}

	/**
	 * A granted trial ended (or the breaker left the fleet's open state another way).
	 * @param closed whether it closed the breaker
	 */
	void endTrial(boolean closed) {
		if (this.granted) {
			this.granted = false;
			SharedOutcomes shared = this.shared;
			if (shared != null) {
				shared.trialEnded(closed);
			}
		}
	}

	/** The breaker closed: the trial, if this pod's, passed, and nothing is held. */
	void closed() {
		endTrial(true);
		this.held = false;
	}

}
