package io.github.llmresilience.overload;

import java.time.Duration;

import io.github.llmresilience.settings.InvalidSettingException;
import io.github.llmresilience.timeout.TimeLimits;

/**
 * How long a provider stays marked overloaded after an answer that speaks for its whole
 * fleet (a 529, an {@code overloaded_error}, "the service is overloaded"). A component
 * out of its range fails construction.
 *
 * @param enabled whether such an answer marks the provider at all (the answer is recorded
 * against its failure domain's breaker either way)
 * @param defaultDuration the mark when the answer named no wait; positive, at most
 * {@code maxDuration}
 * @param maxDuration the longest mark; a longer wait hint is cut to it; positive, at most
 * {@link TimeLimits#MAX}
 */
public record OverloadSettings(boolean enabled, Duration defaultDuration, Duration maxDuration) {

	/** The default {@link #defaultDuration()}: 30 seconds. */
	public static final Duration DEFAULT_DURATION = Duration.ofSeconds(30);

	/** The default {@link #maxDuration()}: 5 minutes. */
	public static final Duration DEFAULT_MAX_DURATION = Duration.ofMinutes(5);

	/**
	 * Check every component.
	 * @throws IllegalArgumentException naming the first component out of its range, the
	 * range and the value
	 */
	public OverloadSettings {
		TimeLimits.requirePositive("defaultDuration", defaultDuration);
		TimeLimits.requirePositive("maxDuration", maxDuration);
		if (defaultDuration.compareTo(maxDuration) > 0) {
			throw new InvalidSettingException("defaultDuration", "must not exceed", "maxDuration", maxDuration,
					defaultDuration);
		}
	}

	/** Enabled, 30 seconds without a hint, at most 5 minutes. */
	public static OverloadSettings defaults() {
		return new OverloadSettings(true, DEFAULT_DURATION, DEFAULT_MAX_DURATION);
	}

}
