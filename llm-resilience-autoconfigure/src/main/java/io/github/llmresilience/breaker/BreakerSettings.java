package io.github.llmresilience.breaker;

import java.time.Duration;

import io.github.llmresilience.settings.InvalidSettingException;
import io.github.llmresilience.timeout.TimeLimits;

/**
 * The thresholds of one failure domain's breaker. Every duration is positive and at most
 * {@link TimeLimits#MAX}; a component out of its range fails construction.
 *
 * @param slidingWindowSize calls the rates are computed over (1 to 10,000)
 * @param minimumCalls calls needed before the rates are evaluated (1 to 10,000)
 * @param failureRateThreshold failure rate, in percent, that opens the breaker (1 to 100)
 * @param slowCallDuration a successful call slower than this is slow
 * @param slowCallRateThreshold slow-call rate, in percent, that opens the breaker (1 to
 * 100)
 * @param openDuration how long the breaker stays open before one trial
 * @param openDurationMax the longest open duration, at least {@code openDuration}; each
 * failed trial doubles the open duration up to it
 * @param halfOpenCalls trial calls let through when half-open (1 to 100)
 * @param slowFirstTokenDuration a stream whose first element came later than this is slow
 * (a stream's latency is its time to first token, so it needs its own threshold)
 * @param halfOpenTimeout the longest a half-open breaker waits for its trials to report;
 * a trial that never does (a crashed caller) counts as failed and the breaker opens again
 */
public record BreakerSettings(int slidingWindowSize, int minimumCalls, float failureRateThreshold,
		Duration slowCallDuration, float slowCallRateThreshold, Duration openDuration, Duration openDurationMax,
		int halfOpenCalls, Duration slowFirstTokenDuration, Duration halfOpenTimeout) {

	/** The default time to first token above which a stream is slow. */
	public static final Duration DEFAULT_SLOW_FIRST_TOKEN = Duration.ofSeconds(3);

	/** The default safety limit of the half-open state. */
	public static final Duration DEFAULT_HALF_OPEN_TIMEOUT = Duration.ofMinutes(5);

	/**
	 * Check every component.
	 * @throws IllegalArgumentException naming the first component out of its range, the
	 * range and the value
	 */
	public BreakerSettings {
		requireRange("slidingWindowSize", slidingWindowSize, 1, 10_000);
		requireRange("minimumCalls", minimumCalls, 1, 10_000);
		requireRange("failureRateThreshold", failureRateThreshold, 1, 100);
		TimeLimits.requirePositive("slowCallDuration", slowCallDuration);
		requireRange("slowCallRateThreshold", slowCallRateThreshold, 1, 100);
		TimeLimits.requirePositive("openDuration", openDuration);
		TimeLimits.requirePositive("openDurationMax", openDurationMax);
		if (openDurationMax.compareTo(openDuration) < 0) {
			throw new InvalidSettingException("openDurationMax", "must be at least", "openDuration", openDuration,
					openDurationMax);
		}
		requireRange("halfOpenCalls", halfOpenCalls, 1, 100);
		TimeLimits.requirePositive("slowFirstTokenDuration", slowFirstTokenDuration);
		TimeLimits.requirePositive("halfOpenTimeout", halfOpenTimeout);
	}

	/** Settings with the default stream threshold and half-open timeout. */
	public BreakerSettings(int slidingWindowSize, int minimumCalls, float failureRateThreshold,
			Duration slowCallDuration, float slowCallRateThreshold, Duration openDuration, Duration openDurationMax,
			int halfOpenCalls) {
		this(slidingWindowSize, minimumCalls, failureRateThreshold, slowCallDuration, slowCallRateThreshold,
				openDuration, openDurationMax, halfOpenCalls, DEFAULT_SLOW_FIRST_TOKEN, DEFAULT_HALF_OPEN_TIMEOUT);
	}

	/**
	 * The defaults of the design: 20 calls, 10 minimum, 50 %, slow at 10 s (3 s to a
	 * stream's first token), open 30 s to 15 min, a half-open trial may take 5 min.
	 */
	public static BreakerSettings defaults() {
		return new BreakerSettings(20, 10, 50, Duration.ofSeconds(10), 50, Duration.ofSeconds(30),
				Duration.ofMinutes(15), 1);
	}

	public BreakerSettings withSlowFirstTokenDuration(Duration slowFirstTokenDuration) {
		return new BreakerSettings(this.slidingWindowSize, this.minimumCalls, this.failureRateThreshold,
				this.slowCallDuration, this.slowCallRateThreshold, this.openDuration, this.openDurationMax,
				this.halfOpenCalls, slowFirstTokenDuration, this.halfOpenTimeout);
	}

	public BreakerSettings withHalfOpenTimeout(Duration halfOpenTimeout) {
		return new BreakerSettings(this.slidingWindowSize, this.minimumCalls, this.failureRateThreshold,
				this.slowCallDuration, this.slowCallRateThreshold, this.openDuration, this.openDurationMax,
				this.halfOpenCalls, this.slowFirstTokenDuration, halfOpenTimeout);
	}

	/**
	 * The open duration after the given number of consecutive openings (1 for the first).
	 */
	public Duration openDurationAfter(int openings) {
		long max = this.openDurationMax.toMillis();
		long wait = Math.min(this.openDuration.toMillis(), max);
		for (int i = 1; i < openings && wait < max; i++) {
			wait = (wait > max / 2) ? max : wait * 2;
		}
		return Duration.ofMillis(wait);
	}

	private static void requireRange(String name, int value, int min, int max) {
		if (value < min || value > max) {
			throw new InvalidSettingException(name, "must be between " + min + " and " + max, value);
		}
	}

	private static void requireRange(String name, float value, int min, int max) {
		if (!(value >= min && value <= max)) {
			throw new InvalidSettingException(name, "must be between " + min + " and " + max, value);
		}
	}

}
