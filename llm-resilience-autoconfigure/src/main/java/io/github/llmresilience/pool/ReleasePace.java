package io.github.llmresilience.pool;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How many calls that waited for a quota scope's gate may be on their way to it at once.
 * A provider that answered {@code 429, retry-after: 1} has room for about one more
 * request when the second passes, and a 429 takes a round trip to come back and gate the
 * scope again: calls released together would all meet the limit. So, per scope, one
 * waiting call goes first; each success doubles how many may be in flight (up to
 * {@link #MAX_ALLOWANCE}), and another rate limit brings it back to one (a slow start).
 * Calls that did not wait are not held: this paces only the queue.
 *
 * <p>
 * A success is not the only sign that the provider took a call: an LLM answer takes
 * seconds, a refusal comes back within a round trip. So the pace also widens on time:
 * when the calls on their way have been out for a step (twice as long as the scope's last
 * refusal took to come back, from {@link #MIN_STEP_NANOS} to {@link #MAX_STEP_NANOS}) and
 * no refusal came, it doubles as on a success. Steps are counted from the end of the gate
 * a refusal set: while the scope is gated no call is sent, so none can be taken. And a
 * waiting call whose wait runs out before it could look again goes anyway, unless the
 * provider refused a call of the scope since it began to wait: failing it as rate limited
 * would be for a limit that no longer holds.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public final class ReleasePace {

	/** The most released calls on their way to one scope at once. */
	static final int MAX_ALLOWANCE = 1024;

	/** The shortest step after which the pace widens without an answer. */
	static final long MIN_STEP_NANOS = 100_000_000L;

	/** The longest step after which the pace widens without an answer. */
	static final long MAX_STEP_NANOS = 1_000_000_000L;

	private final Map<String, Scope> scopes = new ConcurrentHashMap<>();

	/**
	 * A call starts waiting for the scope's gate.
	 * @return what it waits for, to hand to {@link #tryEnter} when its wait is over
	 */
	public Release waiting(String scope) {
		Scope pace = scope(scope);
		synchronized (pace) {
			return new Release(scope, pace.refusals);
		}
	}

	/**
	 * A call that waited for the scope's gate wants to go.
	 * @param nowNanos now, on the engine's monotonic time source
	 * @param lastChance whether the call's wait runs out before it could look again: it
	 * goes unless the provider refused a call of the scope since it began to wait
	 * @return whether it may (then it must {@link #exit} once its attempt is settled)
	 */
	public boolean tryEnter(Release release, long nowNanos, boolean lastChance) {
		Scope pace = scope(release.scope());
		synchronized (pace) {
			if (pace.inFlight >= pace.allowance && nowNanos - pace.stepStart >= pace.step()) {
				// Out for longer than a refusal takes, and none came: taken, as by a
				// success.
				pace.widen(nowNanos);
			}
			if (pace.inFlight < pace.allowance || (lastChance && pace.refusals == release.refusals())) {
				if (pace.inFlight == 0) {
					// The first on its way starts the step.
					pace.restart(nowNanos);
				}
				pace.inFlight++;
				return true;
			}
			return false;
		}
	}

	/**
	 * A released call's attempt is settled.
	 * @param throttled whether the provider rate limited it again
	 * @param nowNanos now, on the engine's monotonic time source
	 */
	public void exit(String scope, boolean throttled, long nowNanos) {
		Scope pace = this.scopes.get(scope);
		if (pace == null) {
			return;
		}
		synchronized (pace) {
			pace.inFlight = Math.max(0, pace.inFlight - 1);
			if (throttled) {
				pace.allowance = 1;
				pace.restart(nowNanos);
			}
			else {
				pace.widen(nowNanos);
			}
		}
	}

	/**
	 * The provider refused a call of the scope (any call, released or not): the pace
	 * starts again from one when the scope's gate ends, and the waiting calls' last
	 * chance is gone.
	 * @param roundTripNanos how long the refusal took to come back
	 * @param nowNanos now, on the engine's monotonic time source
	 * @param gateNanos how long the scope is gated from now
	 */
	public void refused(String scope, long roundTripNanos, long nowNanos, long gateNanos) {
		Scope pace = scope(scope);
		synchronized (pace) {
			pace.refusals++;
			pace.allowance = 1;
			pace.refusalNanos = Math.max(0, roundTripNanos);
			pace.stepStart = nowNanos + Math.max(0, gateNanos);
		}
	}

	/** A released call ended without an answer (cancelled): its place is free again. */
	public void abandon(String scope) {
		Scope pace = this.scopes.get(scope);
		if (pace != null) {
			synchronized (pace) {
				pace.inFlight = Math.max(0, pace.inFlight - 1);
			}
		}
	}

	private Scope scope(String scope) {
		return this.scopes.computeIfAbsent(scope, (key) -> new Scope());
	}

	/**
	 * What a call waits for: a scope's gate, and how many refusals the scope had when the
	 * wait began.
	 *
	 * @param scope the quota scope
	 * @param refusals the scope's refusals so far
	 */
	public record Release(String scope, long refusals) {

	}

	private static final class Scope {

		int allowance = 1;

		int inFlight;

		/**
		 * When the allowance last changed, or the first call went on its way; after a
		 * refusal, when its gate ends (never moved earlier than that).
		 */
		long stepStart;

		long refusals;

		/** How long the last refusal took to come back. */
		long refusalNanos;

		long step() {
			return Math.max(MIN_STEP_NANOS, Math.min(MAX_STEP_NANOS, 2 * this.refusalNanos));
		}

		void widen(long nowNanos) {
			this.allowance = Math.min(MAX_ALLOWANCE, this.allowance * 2);
			restart(nowNanos);
		}

		/** A new step starts now, or when the gate of the last refusal ends. */
		void restart(long nowNanos) {
			this.stepStart = Math.max(this.stepStart, nowNanos);
		}

	}

}
