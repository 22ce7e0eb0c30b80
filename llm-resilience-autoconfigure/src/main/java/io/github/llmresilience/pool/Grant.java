package io.github.llmresilience.pool;

import org.jspecify.annotations.Nullable;

/**
 * One call's draw on a scope's supply: a request, and the tokens it was estimated to use,
 * which the answer's usage corrects.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public final class Grant {

	/** A draw on nothing: the scope's capacity is not known, or pools are off. */
	public static final Grant FREE = new Grant(null, 0, "");

	private final @Nullable ScopeSupply supply;

	private final long estimate;

	private final String pool;

	private boolean settled;

	Grant(@Nullable ScopeSupply supply, long estimate, String pool) {
		this.supply = supply;
		this.estimate = estimate;
		this.pool = pool;
	}

	/** The pool of the call that drew. */
	public String pool() {
		return this.pool;
	}

	/** The tokens drawn before the answer. */
	public long estimate() {
		return this.estimate;
	}

	/**
	 * A retry of the same target: one more request and the same estimate, drawn whether
	 * or not the supply holds them (the retry is sent anyway; later calls wait the debt
	 * out).
	 * @return the retry's own draw
	 */
	public Grant retry() {
		ScopeSupply supply = this.supply;
		if (supply == null) {
			return this;
		}
		supply.takeAnyway(1, this.estimate);
		return new Grant(supply, this.estimate, this.pool);
	}

	/**
	 * The answer came: draw what it used beyond the estimate (the supply may go into
	 * debt, which later calls wait out), or give back what it did not use.
	 * @param used the tokens the answer used, or a negative number when not known (the
	 * estimate stands)
	 */
	public void settle(long used) {
		ScopeSupply supply = this.supply;
		if (supply == null || used < 0 || !settle()) {
			// Nothing to correct; FREE, shared by every call, is never locked.
			return;
		}
		long difference = used - this.estimate;
		if (difference > 0) {
			supply.takeAnyway(0, difference);
		}
		else if (difference < 0) {
			supply.giveBack(0, -difference);
		}
	}

	/** The call did not send after all: give back the request and the estimate. */
	public void cancel() {
		ScopeSupply supply = this.supply;
		if (supply == null || !settle()) {
			return;
		}
		supply.giveBack(1, this.estimate);
	}

	private synchronized boolean settle() {
		if (this.settled) {
			return false;
		}
		this.settled = true;
		return true;
	}

}
