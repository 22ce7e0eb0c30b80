package io.github.llmresilience.execute;

import java.time.Duration;

import io.github.llmresilience.timeout.AdaptiveSettings;

/**
 * Time limits of attempts.
 *
 * @param attempt how long a non-streaming attempt may take
 * @param firstToken how long a streaming attempt may take to its first element
 * @param stall the longest gap between two elements of a stream after the first
 * @param adaptive how {@code attempt} and {@code firstToken} follow measured latency
 */
public record TimeoutSettings(Duration attempt, Duration firstToken, Duration stall, AdaptiveSettings adaptive) {

	/** 30 s per attempt, 5 s to the first token, 10 s stall, adaptive after 200 samples. */
	public static TimeoutSettings defaults() {
		return new TimeoutSettings(Duration.ofSeconds(30), Duration.ofSeconds(5), Duration.ofSeconds(10),
				AdaptiveSettings.defaults());
	}

	public TimeoutSettings withAttempt(Duration attempt) {
		return new TimeoutSettings(attempt, this.firstToken, this.stall, this.adaptive);
	}

	public TimeoutSettings withAdaptive(AdaptiveSettings adaptive) {
		return new TimeoutSettings(this.attempt, this.firstToken, this.stall, adaptive);
	}

}
