package io.github.llmresilience.execute;

import java.time.Duration;

/**
 * Options of one logical call.
 *
 * @param deadline how long the whole call (every attempt, backoff and failover) may take,
 * or {@code null} for no deadline beyond the attempt timeouts
 * @param idempotencyKey the idempotency key to use, or {@code null} to make one
 */
public record CallOptions(Duration deadline, String idempotencyKey) {

	/** No deadline, a generated idempotency key. */
	public static final CallOptions NONE = new CallOptions(null, null);

	public CallOptions {
		if (deadline != null && (deadline.isNegative() || deadline.isZero())) {
			throw new IllegalArgumentException("deadline must be positive, was " + deadline);
		}
	}

	/** A call that must finish within the given time. */
	public static CallOptions deadline(Duration deadline) {
		return new CallOptions(deadline, null);
	}

	public CallOptions withIdempotencyKey(String idempotencyKey) {
		return new CallOptions(this.deadline, idempotencyKey);
	}

}
