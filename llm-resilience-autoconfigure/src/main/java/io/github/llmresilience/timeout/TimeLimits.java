package io.github.llmresilience.timeout;

import java.time.Duration;

import io.github.llmresilience.settings.InvalidSettingException;
import org.jspecify.annotations.Nullable;

/**
 * The longest duration any setting or call option accepts. Times are added to clock
 * readings in nanoseconds, which overflow beyond about 292 years; a year and a day is
 * longer than any wait a provider, an operator or a call could mean.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public final class TimeLimits {

	/** The longest duration a setting or call option accepts: 366 days. */
	public static final Duration MAX = Duration.ofDays(366);

	private TimeLimits() {
	}

	/**
	 * Check a positive duration.
	 * @param name the setting's name, for the message
	 * @param value the value
	 * @return the value
	 * @throws IllegalArgumentException when it is null, zero, negative or beyond
	 * {@link #MAX}
	 */
	public static Duration requirePositive(String name, @Nullable Duration value) {
		if (value == null || value.isNegative() || value.isZero() || value.compareTo(MAX) > 0) {
			throw new InvalidSettingException(name, "must be a positive duration of at most " + MAX.toDays() + " days",
					value);
		}
		return value;
	}

	/**
	 * Check a duration that may be zero.
	 * @param name the setting's name, for the message
	 * @param value the value
	 * @return the value
	 * @throws IllegalArgumentException when it is null, negative or beyond {@link #MAX}
	 */
	public static Duration requireNotNegative(String name, @Nullable Duration value) {
		if (value == null || value.isNegative() || value.compareTo(MAX) > 0) {
			throw new InvalidSettingException(name,
					"must be zero or a positive duration of at most " + MAX.toDays() + " days", value);
		}
		return value;
	}

}
