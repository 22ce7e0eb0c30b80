package io.github.llmresilience.breaker;

import java.time.Duration;

import io.github.llmresilience.timeout.TimeLimits;

/**
 * The thresholds of one failure domain's breaker.
 *
 * @param slidingWindowSize calls the rates are computed over
 * @param minimumCalls calls needed before the rates are evaluated
 * @param failureRateThreshold failure rate, in percent, that opens the breaker
 * @param slowCallDuration a successful call slower than this is slow
 * @param slowCallRateThreshold slow-call rate, in percent, that opens the breaker
 * @param openDuration how long the breaker stays open before one trial
 * @param openDurationMax the longest open duration; each failed trial doubles it
 * @param halfOpenCalls trial calls let through when half-open
 * @param slowFirstTokenDuration a stream whose first element came later than this is
 * slow (a stream's latency is its time to first token, so it needs its own threshold)
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

	public BreakerSettings {
		requireRange("sliding-window-size", slidingWindowSize, 1, 10_000);
		requireRange("minimum-calls", minimumCalls, 1, 10_000);
		requireRange("failure-rate-threshold", failureRateThreshold, 1, 100);
		requireRange("slow-call-rate-threshold", slowCallRateThreshold, 1, 100);
		requireRange("half-open-calls", halfOpenCalls, 1, 1_000);
		requirePositive("slow-call-duration", slowCallDuration);
		requirePositive("open-duration", openDuration);
		requirePositive("open-duration-max", openDurationMax);
		requirePositive("slow-first-token-duration", slowFirstTokenDuration);
		requirePositive("half-open-timeout", halfOpenTimeout);
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

	/** The open duration after the given number of consecutive openings (1 for the first). */
	public Duration openDurationAfter(int openings) {
		long max = this.openDurationMax.toMillis();
		long wait = Math.min(this.openDuration.toMillis(), max);
		for (int i = 1; i < openings && wait < max; i++) {
			wait = (wait > max / 2) ? max : wait * 2;
		}
		return Duration.ofMillis(wait);
	}

	private static void requireRange(String name, double value, double min, double max) {
		if (!(value >= min && value <= max)) {
			throw new IllegalArgumentException(name + " must be between " + (long) min + " and " + (long) max
					+ ", was " + value);
		}
	}

	private static void requirePositive(String name, Duration value) {
		TimeLimits.requirePositive(name, value);
	}

}
