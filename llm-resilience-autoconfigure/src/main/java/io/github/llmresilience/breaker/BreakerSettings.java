package io.github.llmresilience.breaker;

import java.time.Duration;

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
 */
public record BreakerSettings(int slidingWindowSize, int minimumCalls, float failureRateThreshold,
		Duration slowCallDuration, float slowCallRateThreshold, Duration openDuration, Duration openDurationMax,
		int halfOpenCalls) {

	/** The defaults of the design: 20 calls, 10 minimum, 50 %, slow at 10 s, open 30 s to 15 min. */
	public static BreakerSettings defaults() {
		return new BreakerSettings(20, 10, 50, Duration.ofSeconds(10), 50, Duration.ofSeconds(30),
				Duration.ofMinutes(15), 1);
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

}
