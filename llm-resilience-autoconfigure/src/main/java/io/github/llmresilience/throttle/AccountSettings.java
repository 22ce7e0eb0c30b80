package io.github.llmresilience.throttle;

import java.time.Duration;

/**
 * How accounts are parked after a quota answer and locked after credential errors.
 *
 * @param defaultPark the park when the vendor named no reset time
 * @param maxPark the longest park
 * @param lockAfter consecutive credential errors that lock the account
 * @param lockDuration the first lock's cool-off; each new lock doubles it
 * @param lockDurationMax the longest cool-off
 */
public record AccountSettings(Duration defaultPark, Duration maxPark, int lockAfter, Duration lockDuration,
		Duration lockDurationMax) {

	public static AccountSettings defaults() {
		return new AccountSettings(Duration.ofHours(1), Duration.ofDays(31), 2, Duration.ofMinutes(1),
				Duration.ofHours(1));
	}

}
