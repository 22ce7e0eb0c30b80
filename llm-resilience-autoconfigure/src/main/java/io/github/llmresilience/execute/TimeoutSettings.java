package io.github.llmresilience.execute;

import java.time.Duration;

/**
 * Time limits of attempts.
 *
 * @param attempt how long a non-streaming attempt may take
 */
public record TimeoutSettings(Duration attempt) {

	public static TimeoutSettings defaults() {
		return new TimeoutSettings(Duration.ofSeconds(30));
	}

}
