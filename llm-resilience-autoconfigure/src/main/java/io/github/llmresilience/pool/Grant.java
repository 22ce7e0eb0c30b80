package io.github.llmresilience.pool;

import io.github.bucket4j.Bucket;
import org.jspecify.annotations.Nullable;

/**
 * One call's draw on a pool's buckets: a request, and the tokens it was estimated to use,
 * which the answer's usage corrects.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public final class Grant {

	/** A draw on nothing: the scope's capacity is not known, or pools are off. */
	public static final Grant FREE = new Grant(null, null, 0, 0, "");

	private final @Nullable Bucket requests;

	private final @Nullable Bucket tokens;

	private final long estimate;

	private final long waitNanos;

	private final String pool;

	private boolean settled;

	Grant(@Nullable Bucket requests, @Nullable Bucket tokens, long estimate, long waitNanos, String pool) {
		this.requests = requests;
		this.tokens = tokens;
		this.estimate = estimate;
		this.waitNanos = waitNanos;
		this.pool = pool;
	}

	/**
	 * How long the call waits before it may send (a reservation); zero for a draw now.
	 */
	public long waitNanos() {
		return this.waitNanos;
	}

	/**
	 * The pool whose bucket was drawn on (the call's own, or the one it borrowed from).
	 */
	public String pool() {
		return this.pool;
	}

	/** The tokens drawn before the answer. */
	public long estimate() {
		return this.estimate;
	}

	/**
	 * A retry of the same target: one more request and the same estimate, drawn from the
	 * same buckets whether or not they have them (the retry is sent anyway; later calls
	 * wait the debt out).
	 * @return the retry's own draw
	 */
	public Grant retry() {
		if (this.requests == null && this.tokens == null) {
			return this;
		}
		if (this.requests != null) {
			this.requests.consumeIgnoringRateLimits(1);
		}
		if (this.tokens != null && this.estimate > 0) {
			this.tokens.consumeIgnoringRateLimits(this.estimate);
		}
		return new Grant(this.requests, this.tokens, this.estimate, 0, this.pool);
	}

	/**
	 * The answer came: draw what it used beyond the estimate (the bucket may go into
	 * debt, which later calls wait out), or give back what it did not use.
	 * @param used the tokens the answer used, or a negative number when not known (the
	 * estimate stands)
	 */
	public void settle(long used) {
		if (this.tokens == null || used < 0) {
			// Nothing to correct; FREE, shared by every call, is never locked.
			return;
		}
		synchronized (this) {
			if (this.settled) {
				return;
			}
			this.settled = true;
		}
		long difference = used - this.estimate;
		if (difference > 0) {
			this.tokens.consumeIgnoringRateLimits(difference);
		}
		else if (difference < 0) {
			this.tokens.addTokens(-difference);
		}
	}

	/** The call did not send after all: give back the request and the estimate. */
	public void cancel() {
		if (this.requests == null && this.tokens == null) {
			return;
		}
		synchronized (this) {
			if (this.settled) {
				return;
			}
			this.settled = true;
		}
		if (this.requests != null) {
			this.requests.addTokens(1);
		}
		if (this.tokens != null && this.estimate > 0) {
			this.tokens.addTokens(this.estimate);
		}
	}

}
