package io.github.llmresilience.execute;

import java.time.Duration;

import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.timeout.TimeLimits;
import org.jspecify.annotations.Nullable;

/**
 * Per-target settings that differ from the defaults; {@code null} takes the default.
 *
 * @param breaker the breaker settings of the target's failure domain
 * @param attemptTimeout the attempt timeout
 * @param firstTokenTimeout the time allowed to a stream's first element
 * @param stallTimeout the longest gap between a stream's elements
 */
public record TargetOptions(@Nullable BreakerSettings breaker, @Nullable Duration attemptTimeout,
		@Nullable Duration firstTokenTimeout, @Nullable Duration stallTimeout) {

	/**
	 * @throws IllegalArgumentException when a timeout is set and not positive (or above
	 * 366 days); the message names it
	 */
	public TargetOptions {
		positiveOrNull("attemptTimeout", attemptTimeout);
		positiveOrNull("firstTokenTimeout", firstTokenTimeout);
		positiveOrNull("stallTimeout", stallTimeout);
	}

	public static final TargetOptions DEFAULTS = new TargetOptions(null, null, null, null);

	public TargetOptions(@Nullable BreakerSettings breaker, @Nullable Duration attemptTimeout) {
		this(breaker, attemptTimeout, null, null);
	}

	private static void positiveOrNull(String name, @Nullable Duration value) {
		if (value != null) {
			TimeLimits.requirePositive(name, value);
		}
	}

}
