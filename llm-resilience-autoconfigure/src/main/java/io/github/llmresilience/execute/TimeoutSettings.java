package io.github.llmresilience.execute;

import java.time.Duration;

import io.github.llmresilience.timeout.AdaptiveSettings;
import io.github.llmresilience.timeout.TimeLimits;

/**
 * Time limits of calls and attempts. Every duration is positive and at most
 * {@link TimeLimits#MAX}; a component out of its range fails construction.
 *
 * @param attempt how long a non-streaming attempt may take
 * @param firstToken how long a streaming attempt may take to its first element
 * @param stall the longest gap between two elements of a stream after the first
 * @param adaptive how {@code attempt} and {@code firstToken} follow measured latency
 * @param call how long a whole call (every attempt, backoff and failover; for a stream,
 * up to its first element) may take when the caller gives no deadline
 */
public record TimeoutSettings(Duration attempt, Duration firstToken, Duration stall, AdaptiveSettings adaptive,
		Duration call) {

	/**
	 * The default deadline of a call: one timed-out attempt and a whole one on a backup.
	 */
	public static final Duration DEFAULT_CALL = Duration.ofSeconds(60);

	/**
	 * Check every component.
	 * @throws IllegalArgumentException naming the first component out of its range, the
	 * range and the value
	 */
	public TimeoutSettings {
		TimeLimits.requirePositive("attempt", attempt);
		TimeLimits.requirePositive("firstToken", firstToken);
		TimeLimits.requirePositive("stall", stall);
		if (adaptive == null) {
			throw new IllegalArgumentException("adaptive must not be null");
		}
		TimeLimits.requirePositive("call", call);
	}

	/** Limits with the default call deadline. */
	public TimeoutSettings(Duration attempt, Duration firstToken, Duration stall, AdaptiveSettings adaptive) {
		this(attempt, firstToken, stall, adaptive, DEFAULT_CALL);
	}

	/**
	 * 30 s per attempt, 5 s to the first token, 10 s stall, 60 s per call, adaptive after
	 * 200 samples.
	 */
	public static TimeoutSettings defaults() {
		return new TimeoutSettings(Duration.ofSeconds(30), Duration.ofSeconds(5), Duration.ofSeconds(10),
				AdaptiveSettings.defaults());
	}

	public TimeoutSettings withAttempt(Duration attempt) {
		return new TimeoutSettings(attempt, this.firstToken, this.stall, this.adaptive, this.call);
	}

	public TimeoutSettings withAdaptive(AdaptiveSettings adaptive) {
		return new TimeoutSettings(this.attempt, this.firstToken, this.stall, adaptive, this.call);
	}

	public TimeoutSettings withCall(Duration call) {
		return new TimeoutSettings(this.attempt, this.firstToken, this.stall, this.adaptive, call);
	}

}
