package io.github.llmresilience.hedge;

import java.time.Duration;

import io.github.llmresilience.settings.InvalidSettingException;
import io.github.llmresilience.timeout.MeasuredTimeout;
import io.github.llmresilience.timeout.TimeLimits;
import org.jspecify.annotations.Nullable;

/**
 * First-token hedging of streams. A component out of its range fails construction,
 * whether or not {@code enabled} is set.
 *
 * @param enabled whether a late first element sends a hedge at all
 * @param delay how long a stream's attempt waits for its first element before the hedge
 * is sent, or {@code null} for its target's measured 95th percentile time to first token
 * (half the first-token timeout in force until {@link #MIN_SAMPLES} are measured); when
 * set, positive, at most {@link TimeLimits#MAX}
 * @param budget hedges allowed as a share of the chain's streams over the window; above
 * 0, at most 1
 * @param window how long streams and hedges count for the budget; positive
 * @param minimum hedges always allowed per window whatever the streams, so that a quiet
 * service can still hedge a little (0 to 1,000,000)
 */
public record HedgingSettings(boolean enabled, @Nullable Duration delay, double budget, Duration window, int minimum) {

	/** The default {@link #budget()}: 5 % of streams. */
	public static final double DEFAULT_BUDGET = 0.05;

	/** The default {@link #window()}: 10 seconds, the retry budget's. */
	public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(10);

	/** The default {@link #minimum()}: one hedge per window. */
	public static final int DEFAULT_MINIMUM = 1;

	/**
	 * First tokens a target must have measured before its 95th percentile is the delay:
	 * the 95th of 20 is the second slowest, the least that is still a percentile.
	 */
	public static final int MIN_SAMPLES = 20;

	/**
	 * The shortest delay: a target whose first tokens all came at once would otherwise
	 * hedge every stream the budget allows at the instant it starts.
	 */
	public static final Duration MIN_DELAY = Duration.ofMillis(1);

	/**
	 * Check every component.
	 * @throws IllegalArgumentException naming the first component out of its range, the
	 * range and the value
	 */
	public HedgingSettings {
		if (delay != null) {
			TimeLimits.requirePositive("delay", delay);
		}
		if (!(budget > 0 && budget <= 1)) {
			throw new InvalidSettingException("budget", "must be above 0 and at most 1", budget);
		}
		TimeLimits.requirePositive("window", window);
		if (minimum < 0 || minimum > 1_000_000) {
			throw new InvalidSettingException("minimum", "must be between 0 and 1000000", minimum);
		}
	}

	/** Off; when enabled, the measured delay, 5 % of streams over 10 s, at least one. */
	public static HedgingSettings defaults() {
		return new HedgingSettings(false, null, DEFAULT_BUDGET, DEFAULT_WINDOW, DEFAULT_MINIMUM);
	}

	/** These settings, enabled or not. */
	public HedgingSettings withEnabled(boolean enabled) {
		return new HedgingSettings(enabled, this.delay, this.budget, this.window, this.minimum);
	}

	/** These settings with another delay ({@code null}: measured). */
	public HedgingSettings withDelay(@Nullable Duration delay) {
		return new HedgingSettings(this.enabled, delay, this.budget, this.window, this.minimum);
	}

	/** These settings with another budget and window. */
	public HedgingSettings withBudget(double budget, Duration window, int minimum) {
		return new HedgingSettings(this.enabled, this.delay, budget, window, minimum);
	}

	/**
	 * How long an attempt waits for its first element before a hedge: the configured
	 * delay; else the target's 95th percentile time to first token once
	 * {@link #MIN_SAMPLES} are measured (a stream slower than 19 in 20 is late, whatever
	 * the target's normal); else half the first-token timeout in force, which the
	 * target's own timeout would cut only later. Never below {@link #MIN_DELAY}.
	 * @param firstToken the target's first-token timeout, which measures its first tokens
	 * @return the delay in nanoseconds
	 */
	public long delayNanos(MeasuredTimeout firstToken) {
		long nanos;
		if (this.delay != null) {
			nanos = this.delay.toNanos();
		}
		else if (firstToken.samples() >= MIN_SAMPLES) {
			nanos = firstToken.p95Nanos();
		}
		else {
			nanos = firstToken.current().toNanos() / 2;
		}
		return Math.max(MIN_DELAY.toNanos(), nanos);
	}

}
