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
 * @param probability the share of requests a {@code flaky} target fails
 */
public record ModeSetting(Mode mode, @Nullable Instant until, int retryAfterSeconds, double probability) {

	/** The wait a rate limit asks for when the mode request does not say. */
	public static final int DEFAULT_RETRY_AFTER_SECONDS = 2;

	/** The failure share of a flaky target when the mode request does not say. */
	public static final double DEFAULT_PROBABILITY = 0.5;

	public static final ModeSetting NORMAL = new ModeSetting(Mode.NORMAL, null, DEFAULT_RETRY_AFTER_SECONDS,
			DEFAULT_PROBABILITY);

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
	}

	/** A mode that lasts until changed. */
	public static ModeSetting of(Mode mode) {
		return new ModeSetting(mode, null, DEFAULT_RETRY_AFTER_SECONDS, DEFAULT_PROBABILITY);
	}

	/** The same mode, ending by itself after the given time. */
	public ModeSetting lasting(Duration duration, Instant now) {
		return new ModeSetting(this.mode, now.plus(duration), this.retryAfterSeconds, this.probability);
	}

	public ModeSetting withRetryAfterSeconds(int seconds) {
		return new ModeSetting(this.mode, this.until, seconds, this.probability);
	}

	public ModeSetting withProbability(double probability) {
		return new ModeSetting(this.mode, this.until, this.retryAfterSeconds, probability);
	}

	/** Whether the mode has ended by itself at the given time. */
	boolean isOver(Instant now) {
		return this.until != null && !now.isBefore(this.until);
	}

}
