package io.github.llmresilience.execute;

import java.time.Duration;

import io.github.llmresilience.timeout.internal.TimeLimits;
import org.jspecify.annotations.Nullable;

/**
 * Options of one logical call.
 *
 * @param deadline how long the whole call (every attempt, backoff and failover; for a
 * stream, up to its first element) may take, or {@code null} for the configured
 * {@code timeouts.call}; at most 366 days
 * @param idempotencyKey the idempotency key to use, or {@code null} to make one
 */
public record CallOptions(@Nullable Duration deadline, @Nullable String idempotencyKey) {

	/** The configured deadline, a generated idempotency key. */
	public static final CallOptions NONE = new CallOptions(null, null);

	public CallOptions {
		if (deadline != null) {
			TimeLimits.requirePositive("deadline", deadline);
		}
	}

	/** A call that must finish within the given time. */
	public static CallOptions deadline(Duration deadline) {
		return new CallOptions(deadline, null);
	}

	public CallOptions withIdempotencyKey(@Nullable String idempotencyKey) {
		return new CallOptions(this.deadline, idempotencyKey);
	}

}
