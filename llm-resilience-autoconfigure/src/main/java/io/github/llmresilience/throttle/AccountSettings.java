package io.github.llmresilience.throttle;

import java.time.Duration;

import io.github.llmresilience.settings.InvalidSettingException;
import io.github.llmresilience.timeout.TimeLimits;

/**
 * How accounts are parked after a quota answer and locked after credential errors. Every
 * duration is positive and at most {@link TimeLimits#MAX}; a component out of its range
 * fails construction.
 *
 * @param defaultPark the park when the provider named no reset time, at most
 * {@code maxPark}
 * @param maxPark the longest park
 * @param lockAfter consecutive credential errors that lock the account (1 to 100)
 * @param lockDuration the first lock's cool-off; each new lock doubles it
 * @param lockDurationMax the longest cool-off, at least {@code lockDuration}
 */
public record AccountSettings(Duration defaultPark, Duration maxPark, int lockAfter, Duration lockDuration,
		Duration lockDurationMax) {

	/**
	 * Check every component.
	 * @throws IllegalArgumentException naming the first component out of its range, the
	 * range and the value
	 */
	public AccountSettings {
		TimeLimits.requirePositive("defaultPark", defaultPark);
		TimeLimits.requirePositive("maxPark", maxPark);
		if (defaultPark.compareTo(maxPark) > 0) {
			throw new InvalidSettingException("defaultPark", "must not exceed", "maxPark", maxPark, defaultPark);
		}
		if (lockAfter < 1 || lockAfter > 100) {
			throw new InvalidSettingException("lockAfter", "must be between 1 and 100", lockAfter);
		}
		TimeLimits.requirePositive("lockDuration", lockDuration);
		TimeLimits.requirePositive("lockDurationMax", lockDurationMax);
		if (lockDurationMax.compareTo(lockDuration) < 0) {
			throw new InvalidSettingException("lockDurationMax", "must be at least", "lockDuration", lockDuration,
					lockDurationMax);
		}
	}

	/**
	 * Park 1 h (31 d at most); lock after 2 credential errors for 1 min, doubling up to 1
	 * h.
	 */
	public static AccountSettings defaults() {
		return new AccountSettings(Duration.ofHours(1), Duration.ofDays(31), 2, Duration.ofMinutes(1),
				Duration.ofHours(1));
	}

}
