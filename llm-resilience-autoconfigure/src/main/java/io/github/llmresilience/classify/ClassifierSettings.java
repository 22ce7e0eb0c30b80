package io.github.llmresilience.classify;

import java.time.Clock;
import java.time.Duration;

import io.github.llmresilience.timeout.TimeLimits;

/**
 * What the built-in classifiers need besides the answer itself.
 *
 * @param clock the clock for "now", when a provider names an instant and its response has
 * no {@code date} header
 * @param quotaThreshold a rate limit whose provider-stated reset is further off than this
 * is read as {@link Outcome#QUOTA}: a reset header ({@code x-ratelimit-reset-*},
 * {@code anthropic-ratelimit-*-reset}) or the provider's error message naming such a
 * wait, as Azure's "Please retry after 86400 seconds" does. A bare {@code retry-after}
 * (or {@code retry-after-ms}, or Gemini's {@code RetryInfo}) never is on its own: one
 * absurd header value must not park a whole account for weeks; the throttle gate cuts it
 * to {@code throttle.max-wait} instead. Positive, at most {@link TimeLimits#MAX}
 * @param listener told about every answer the provider's table does not know
 */
public record ClassifierSettings(Clock clock, Duration quotaThreshold, UnclassifiedListener listener) {

	/** The default {@link #quotaThreshold()}: one hour. */
	public static final Duration DEFAULT_QUOTA_THRESHOLD = Duration.ofHours(1);

	/**
	 * Check every component.
	 * @throws IllegalArgumentException naming the first component that is missing or out
	 * of its range, the range and the value
	 */
	public ClassifierSettings {
		if (clock == null) {
			throw new IllegalArgumentException("clock must not be null");
		}
		TimeLimits.requirePositive("quotaThreshold", quotaThreshold);
		if (listener == null) {
			throw new IllegalArgumentException("listener must not be null");
		}
	}

	/** The system UTC clock, a one-hour quota threshold, no listener. */
	public static ClassifierSettings defaults() {
		return new ClassifierSettings(Clock.systemUTC(), DEFAULT_QUOTA_THRESHOLD, UnclassifiedListener.NONE);
	}

	public ClassifierSettings withClock(Clock clock) {
		return new ClassifierSettings(clock, this.quotaThreshold, this.listener);
	}

	public ClassifierSettings withQuotaThreshold(Duration quotaThreshold) {
		return new ClassifierSettings(this.clock, quotaThreshold, this.listener);
	}

	public ClassifierSettings withListener(UnclassifiedListener listener) {
		return new ClassifierSettings(this.clock, this.quotaThreshold, listener);
	}

}
