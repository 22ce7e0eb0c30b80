package io.github.llmresilience.execute;

import java.time.Duration;

import io.github.llmresilience.pool.PoolSettings;
import io.github.llmresilience.timeout.TimeLimits;
import org.jspecify.annotations.Nullable;

/**
 * Options of one logical call.
 *
 * @param deadline how long the whole call (every attempt, backoff, wait and failover; for
 * a stream, up to its first element) may take, or {@code null} for the configured
 * {@code timeouts.call} of working time, to which the call's waits for a rate limit to
 * clear are added (at most its pool's {@code max-wait}); at most 366 days
 * @param idempotencyKey the idempotency key to use, or {@code null} to make one
 * @param pool the call's traffic class, which quota pool it draws from and how long it
 * may wait for a rate limit to clear: {@code interactive} (the default),
 * {@code background}, {@code evaluation} or a pool the application configured
 */
public record CallOptions(@Nullable Duration deadline, @Nullable String idempotencyKey, String pool) {

	/** The configured deadline, a generated idempotency key, the interactive pool. */
	public static final CallOptions NONE = new CallOptions(null, null, PoolSettings.INTERACTIVE);

	public CallOptions {
		if (deadline != null) {
			TimeLimits.requirePositive("deadline", deadline);
		}
		pool = PoolSettings.requireName("pool", pool);
	}

	/**
	 * Options of an interactive call.
	 * @param deadline the call's deadline, or {@code null} for the configured one
	 * @param idempotencyKey the idempotency key, or {@code null} to make one
	 */
	public CallOptions(@Nullable Duration deadline, @Nullable String idempotencyKey) {
		this(deadline, idempotencyKey, PoolSettings.INTERACTIVE);
	}

	/** An interactive call that must finish within the given time. */
	public static CallOptions deadline(Duration deadline) {
		return new CallOptions(deadline, null, PoolSettings.INTERACTIVE);
	}

	/**
	 * A call of the given traffic class, with the configured deadline: it draws from that
	 * pool's share of each quota scope and waits up to that pool's {@code max-wait}.
	 */
	public static CallOptions pool(String pool) {
		return new CallOptions(null, null, pool);
	}

	public CallOptions withIdempotencyKey(@Nullable String idempotencyKey) {
		return new CallOptions(this.deadline, idempotencyKey, this.pool);
	}

	/** These options in another traffic class. */
	public CallOptions withPool(String pool) {
		return new CallOptions(this.deadline, this.idempotencyKey, pool);
	}

	/** These options with another deadline ({@code null}: the configured one). */
	public CallOptions withDeadline(@Nullable Duration deadline) {
		return new CallOptions(deadline, this.idempotencyKey, this.pool);
	}

}
