package io.github.llmresilience.throttle;

import java.time.Duration;

import io.github.llmresilience.settings.InvalidSettingException;
import io.github.llmresilience.timeout.TimeLimits;

/**
 * How long a rate-limited quota scope stays gated. A component out of its range fails
 * construction.
 *
 * @param defaultWait the gate when the provider named no wait, or one below
 * {@code minWait}; positive, at most {@code maxWait}
 * @param maxWait the longest gate; longer hints are cut to it; positive, at most
 * {@link TimeLimits#MAX}
 * @param minWait the shortest hint believed: a zero, sub-millisecond or already-passed
 * hint (clock skew) would gate the scope for nothing and send every call to the
 * rate-limited target first, so anything shorter counts as no hint; zero believes every
 * hint; zero or more and below {@code defaultWait}
 */
public record ThrottleSettings(Duration defaultWait, Duration maxWait, Duration minWait) {

	/** The default {@link #minWait()}: 100 ms. */
	public static final Duration DEFAULT_MIN_WAIT = Duration.ofMillis(100);

	/**
	 * Check every component.
	 * @throws IllegalArgumentException naming the first component out of its range, the
	 * range and the value
	 */
	public ThrottleSettings {
		TimeLimits.requirePositive("defaultWait", defaultWait);
		TimeLimits.requirePositive("maxWait", maxWait);
		if (defaultWait.compareTo(maxWait) > 0) {
			throw new InvalidSettingException("defaultWait", "must not exceed", "maxWait", maxWait, defaultWait);
		}
		if (minWait == null || minWait.isNegative() || minWait.compareTo(defaultWait) >= 0) {
			throw new InvalidSettingException("minWait", "must be zero or more and below", "defaultWait", defaultWait,
					minWait);
		}
	}

	/**
	 * Settings with the default {@link #minWait()} for the default wait (see
	 * {@link #defaultMinWait(Duration)}).
	 * @param defaultWait the gate when the provider named no wait
	 * @param maxWait the longest gate
	 */
	public ThrottleSettings(Duration defaultWait, Duration maxWait) {
		this(defaultWait, maxWait, defaultMinWait(defaultWait));
	}

	/**
	 * The shortest hint believed when none is set: {@link #DEFAULT_MIN_WAIT}, or half the
	 * default wait when that is shorter, so that any positive default wait has one.
	 * @param defaultWait the gate when the provider named no wait; {@code null} or not
	 * positive gives {@link #DEFAULT_MIN_WAIT} (the default wait itself is refused then)
	 */
	public static Duration defaultMinWait(Duration defaultWait) {
		if (defaultWait == null || defaultWait.isNegative() || defaultWait.isZero()) {
			return DEFAULT_MIN_WAIT;
		}
		Duration half = defaultWait.dividedBy(2);
		return (half.compareTo(DEFAULT_MIN_WAIT) < 0) ? half : DEFAULT_MIN_WAIT;
	}

	public static ThrottleSettings defaults() {
		return new ThrottleSettings(Duration.ofSeconds(5), Duration.ofSeconds(300), DEFAULT_MIN_WAIT);
	}

}
