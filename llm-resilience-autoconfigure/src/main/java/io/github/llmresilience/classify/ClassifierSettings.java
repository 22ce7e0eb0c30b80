package io.github.llmresilience.classify;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * What the built-in classifiers need besides the answer itself.
 *
 * @param clock the clock for "now", when a vendor names an instant and its response has
 * no {@code date} header
 * @param quotaThreshold a throttle whose wait hint is longer than this is read as
 * {@link Outcome#QUOTA}: an Azure 429 asking for 86,400 s is a quota, not a rate limit
 * @param listener told about every answer the vendor's table does not know
 */
public record ClassifierSettings(Clock clock, Duration quotaThreshold, UnclassifiedListener listener) {

	/** The default {@link #quotaThreshold()}: one hour. */
	public static final Duration DEFAULT_QUOTA_THRESHOLD = Duration.ofHours(1);

	public ClassifierSettings {
		Objects.requireNonNull(clock, "clock");
		Objects.requireNonNull(quotaThreshold, "quotaThreshold");
		Objects.requireNonNull(listener, "listener");
		if (quotaThreshold.isNegative() || quotaThreshold.isZero()) {
			throw new IllegalArgumentException("quotaThreshold must be positive, was " + quotaThreshold);
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
