package io.github.llmresilience.pool.internal;

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
 */
public final class ReleasePace {

	/** The most released calls on their way to one scope at once. */
	static final int MAX_ALLOWANCE = 1024;

	private final Map<String, Scope> scopes = new ConcurrentHashMap<>();

	/**
	 * A call that waited for the scope's gate wants to go.
	 * @return whether it may (then it must {@link #exit} once its attempt is settled)
	 */
	public boolean tryEnter(String scope) {
		Scope pace = this.scopes.computeIfAbsent(scope, (key) -> new Scope());
		synchronized (pace) {
			if (pace.inFlight >= pace.allowance) {
				return false;
			}
			pace.inFlight++;
			return true;
		}
	}

	/**
	 * A released call's attempt is settled.
	 * @param throttled whether the provider rate limited it again
	 */
	public void exit(String scope, boolean throttled) {
		Scope pace = this.scopes.get(scope);
		if (pace == null) {
			return;
		}
		synchronized (pace) {
			pace.inFlight = Math.max(0, pace.inFlight - 1);
			pace.allowance = throttled ? 1 : Math.min(MAX_ALLOWANCE, pace.allowance * 2);
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

	private static final class Scope {

		int allowance = 1;

		int inFlight;

	}

}
