package io.github.llmresilience.throttle;

import java.time.Duration;

/**
 * How long a rate-limited quota scope stays gated.
 *
 * @param defaultWait the gate when the vendor named no wait
 * @param maxWait the longest gate; longer hints are cut to it
 */
public record ThrottleSettings(Duration defaultWait, Duration maxWait) {

	public static ThrottleSettings defaults() {
		return new ThrottleSettings(Duration.ofSeconds(5), Duration.ofSeconds(300));
	}

}
