package io.github.llmresilience.throttle;

import java.time.Duration;

/**
 * How long a rate-limited quota scope stays gated.
 *
 * @param defaultWait the gate when the vendor named no wait, or one below {@code minWait}
 * @param maxWait the longest gate; longer hints are cut to it
 * @param minWait the shortest hint believed: a zero, sub-millisecond or already-passed
 * hint (clock skew) would gate the scope for nothing and send every call to the
 * rate-limited target first, so anything shorter counts as no hint; zero believes
 * every hint
 */
public record ThrottleSettings(Duration defaultWait, Duration maxWait, Duration minWait) {

	/** The default {@link #minWait()}: 100 ms. */
	public static final Duration DEFAULT_MIN_WAIT = Duration.ofMillis(100);

	/**
	 * Settings with the default {@link #minWait()}.
	 * @param defaultWait the gate when the vendor named no wait
	 * @param maxWait the longest gate
	 */
	public ThrottleSettings(Duration defaultWait, Duration maxWait) {
		this(defaultWait, maxWait, DEFAULT_MIN_WAIT);
	}

	public static ThrottleSettings defaults() {
		return new ThrottleSettings(Duration.ofSeconds(5), Duration.ofSeconds(300), DEFAULT_MIN_WAIT);
	}

}
