package io.github.llmresilience.timeout;

import java.time.Duration;

/**
 * How timeouts follow measured latency: once {@code minSamples} successful calls are
 * recorded, a timeout becomes {@code clamp(multiplier * p99, floor, static timeout)}.
 *
 * @param enabled whether timeouts follow measured latency at all
 * @param minSamples successful calls needed before the measured value is used
 * @param multiplier how far above the p99 the timeout sits
 * @param floor the shortest timeout the measurement may set
 */
public record AdaptiveSettings(boolean enabled, int minSamples, double multiplier, Duration floor) {

	public static AdaptiveSettings defaults() {
		return new AdaptiveSettings(true, 200, 3.0, Duration.ofSeconds(1));
	}

	public static AdaptiveSettings disabled() {
		return new AdaptiveSettings(false, 200, 3.0, Duration.ofSeconds(1));
	}

}
