package io.github.llmresilience.timeout;

import java.time.Duration;

/**
 * How timeouts follow measured latency: once {@code minSamples} calls are recorded, a
 * timeout becomes {@code clamp(multiplier * p99, max(floor, floorRatio * configured),
 * configured)}, widened after timeouts as {@link MeasuredTimeout} describes.
 *
 * @param enabled whether timeouts follow measured latency at all
 * @param minSamples calls (successes, and timeouts as censored samples) needed before the
 * measured value is used
 * @param multiplier how far above the p99 the timeout sits
 * @param floor the shortest timeout the measurement may set
 * @param floorRatio the shortest timeout the measurement may set, as a fraction of the
 * configured value; the higher of this and {@code floor} holds
 */
public record AdaptiveSettings(boolean enabled, int minSamples, double multiplier, Duration floor,
		double floorRatio) {

	/**
	 * The default {@code floorRatio}: a measured timeout is never shorter than a fifth of
	 * the configured one.
	 */
	public static final double DEFAULT_FLOOR_RATIO = 0.2;

	public static AdaptiveSettings defaults() {
		return new AdaptiveSettings(true, 200, 3.0, Duration.ofSeconds(1), DEFAULT_FLOOR_RATIO);
	}

	public static AdaptiveSettings disabled() {
		return new AdaptiveSettings(false, 200, 3.0, Duration.ofSeconds(1), DEFAULT_FLOOR_RATIO);
	}

}
