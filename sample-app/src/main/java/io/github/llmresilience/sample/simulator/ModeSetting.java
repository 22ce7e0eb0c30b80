package io.github.llmresilience.sample.simulator;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * The mode a simulated target is in, and until when.
 *
 * @param mode the behaviour
 * @param until when the mode ends by itself and the target is back to normal, or
 * {@code null} for never
 * @param retryAfterSeconds the wait a {@code throttle} answer asks for
 * @param probability the share of requests a {@code flaky} target fails, or a
 * {@code tail} target slows
 * @param capacity the concurrent requests a {@code brownout} target serves before it
 * queues and sheds
 */
public record ModeSetting(Mode mode, @Nullable Instant until, int retryAfterSeconds, double probability, int capacity) {

	/** The wait a rate limit asks for when the mode request does not say. */
	public static final int DEFAULT_RETRY_AFTER_SECONDS = 2;

	/** The failure share of a flaky target when the mode request does not say. */
	public static final double DEFAULT_PROBABILITY = 0.5;

	/**
	 * The slow share of a tail target when the mode request does not say: 5 %, the tail
	 * beyond a p95 that hedging at the p95 is meant to cut.
	 */
	public static final double DEFAULT_TAIL_PROBABILITY = 0.05;

	/**
	 * The concurrent requests a brownout target serves when the mode request does not
	 * say.
	 */
	public static final int DEFAULT_CAPACITY = 8;

	public static final ModeSetting NORMAL = of(Mode.NORMAL);

	public ModeSetting {
		if (mode == null) {
			throw new IllegalArgumentException("mode is required");
		}
		if (retryAfterSeconds < 0) {
			throw new IllegalArgumentException("retryAfterSeconds must be zero or positive, was " + retryAfterSeconds);
		}
		if (!(probability >= 0 && probability <= 1)) {
			throw new IllegalArgumentException("probability must be between 0 and 1, was " + probability);
		}
		if (capacity < 1 || capacity > 100_000) {
			throw new IllegalArgumentException("capacity must be between 1 and 100000, was " + capacity);
		}
	}

	/** A mode that lasts until changed, with the defaults of its parameters. */
	public static ModeSetting of(Mode mode) {
		return new ModeSetting(mode, null, DEFAULT_RETRY_AFTER_SECONDS,
				(mode == Mode.TAIL) ? DEFAULT_TAIL_PROBABILITY : DEFAULT_PROBABILITY, DEFAULT_CAPACITY);
	}

	/** The same mode, ending by itself after the given time. */
	public ModeSetting lasting(Duration duration, Instant now) {
		return new ModeSetting(this.mode, now.plus(duration), this.retryAfterSeconds, this.probability, this.capacity);
	}

	public ModeSetting withRetryAfterSeconds(int seconds) {
		return new ModeSetting(this.mode, this.until, seconds, this.probability, this.capacity);
	}

	public ModeSetting withProbability(double probability) {
		return new ModeSetting(this.mode, this.until, this.retryAfterSeconds, probability, this.capacity);
	}

	public ModeSetting withCapacity(int capacity) {
		return new ModeSetting(this.mode, this.until, this.retryAfterSeconds, this.probability, capacity);
	}

	/** Whether the mode has ended by itself at the given time. */
	boolean isOver(Instant now) {
		return this.until != null && !now.isBefore(this.until);
	}

}
