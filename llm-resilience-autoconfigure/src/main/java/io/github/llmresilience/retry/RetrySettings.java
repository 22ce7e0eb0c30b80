package io.github.llmresilience.retry;

import java.time.Duration;

/**
 * Same-target retries.
 *
 * @param maxAttempts attempts per target for one call, the first included
 * @param backoffBase backoff ceiling before the first retry; doubled per retry
 * @param backoffMax the highest backoff ceiling
 * @param budgetRatio retries allowed as a share of calls over the window
 * @param budgetWindow the window the budget counts over
 * @param budgetMinimum retries always allowed in a window
 */
public record RetrySettings(int maxAttempts, Duration backoffBase, Duration backoffMax, double budgetRatio,
		Duration budgetWindow, int budgetMinimum) {

	/** 3 attempts, 500 ms to 30 s backoff, retries at most 10 % of calls over 10 s (at least 3). */
	public static RetrySettings defaults() {
		return new RetrySettings(3, Duration.ofMillis(500), Duration.ofSeconds(30), 0.1, Duration.ofSeconds(10), 3);
	}

}
