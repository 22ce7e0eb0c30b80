package io.github.llmresilience.timeout;

import java.time.Duration;

import io.github.llmresilience.settings.InvalidSettingException;

/**
 * How timeouts follow measured latency: once {@code minSamples} calls are recorded, a
 * timeout becomes {@code clamp(multiplier * p99, max(floor, floorRatio * configured),
 * configured)}, widened after timeouts as {@link MeasuredTimeout} describes. The ranges
 * hold whether or not {@code enabled} is set; a component out of its range fails
 * construction.
 *
 * @param enabled whether timeouts follow measured latency at all
 * @param minSamples calls (successes, and timeouts as censored samples) needed before the
 * measured value is used (1 to 1,000,000)
 * @param multiplier how far above the p99 the timeout sits (1 to 100)
 * @param floor the shortest timeout the measurement may set; positive, at most
 * {@link TimeLimits#MAX}
 * @param floorRatio the shortest timeout the measurement may set, as a fraction of the
 * configured value (0 to 1); the higher of this and {@code floor} holds
 */
public record AdaptiveSettings(boolean enabled, int minSamples, double multiplier, Duration floor, double floorRatio) {

	/**
	 * The default {@code floorRatio}: a measured timeout is never shorter than a fifth of
	 * the configured one.
	 */
	public static final double DEFAULT_FLOOR_RATIO = 0.2;

	/**
	 * Check every component.
	 * @throws IllegalArgumentException naming the first component out of its range, the
	 * range and the value
	 */
	public AdaptiveSettings {
		if (minSamples < 1 || minSamples > 1_000_000) {
			throw new InvalidSettingException("minSamples", "must be between 1 and 1000000", minSamples);
		}
		requireRange("multiplier", multiplier, 1, 100);
		TimeLimits.requirePositive("floor", floor);
		requireRange("floorRatio", floorRatio, 0, 1);
	}

	/**
	 * Enabled after 200 samples, three times the p99, never below 1 s or a fifth of the
	 * configured value.
	 */
	public static AdaptiveSettings defaults() {
		return new AdaptiveSettings(true, 200, 3.0, Duration.ofSeconds(1), DEFAULT_FLOOR_RATIO);
	}

	/** The defaults with {@code enabled} off: timeouts stay as configured. */
	public static AdaptiveSettings disabled() {
		return new AdaptiveSettings(false, 200, 3.0, Duration.ofSeconds(1), DEFAULT_FLOOR_RATIO);
	}

	private static void requireRange(String name, double value, int min, int max) {
		if (!(value >= min && value <= max)) {
			throw new InvalidSettingException(name, "must be between " + min + " and " + max, value);
		}
	}

}
