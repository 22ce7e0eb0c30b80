package io.github.llmresilience.retry;

import java.time.Duration;

import io.github.llmresilience.settings.InvalidSettingException;
import io.github.llmresilience.timeout.TimeLimits;

/**
 * Same-target retries. Every duration is at most {@link TimeLimits#MAX}; a component out
 * of its range fails construction.
 *
 * @param maxAttempts attempts per target for one call, the first included (1 to 10)
 * @param backoffBase backoff ceiling before the first retry, zero or more; doubled per
 * retry
 * @param backoffMax the highest backoff ceiling, at least {@code backoffBase}
 * @param budgetRatio retries allowed as a share of calls over the window (0 to 1)
 * @param budgetWindow the window the budget counts over, positive
 * @param budgetMinimum retries always allowed in a window (0 to 1,000,000)
 */
public record RetrySettings(int maxAttempts, Duration backoffBase, Duration backoffMax, double budgetRatio,
		Duration budgetWindow, int budgetMinimum) {

	/**
	 * Check every component.
	 * @throws IllegalArgumentException naming the first component out of its range, the
	 * range and the value
	 */
	public RetrySettings {
		requireRange("maxAttempts", maxAttempts, 1, 10);
		TimeLimits.requireNotNegative("backoffBase", backoffBase);
		TimeLimits.requireNotNegative("backoffMax", backoffMax);
		if (backoffMax.compareTo(backoffBase) < 0) {
			throw new InvalidSettingException("backoffMax", "must be at least", "backoffBase", backoffBase, backoffMax);
		}
		if (!(budgetRatio >= 0 && budgetRatio <= 1)) {
			throw new InvalidSettingException("budgetRatio", "must be between 0 and 1", budgetRatio);
		}
		TimeLimits.requirePositive("budgetWindow", budgetWindow);
		requireRange("budgetMinimum", budgetMinimum, 0, 1_000_000);
	}

	/**
	 * 3 attempts, 500 ms to 30 s backoff, retries at most 10 % of calls over 10 s (at
	 * least 3).
	 */
	public static RetrySettings defaults() {
		return new RetrySettings(3, Duration.ofMillis(500), Duration.ofSeconds(30), 0.1, Duration.ofSeconds(10), 3);
	}

	private static void requireRange(String name, int value, int min, int max) {
		if (value < min || value > max) {
			throw new InvalidSettingException(name, "must be between " + min + " and " + max, value);
		}
	}

}
