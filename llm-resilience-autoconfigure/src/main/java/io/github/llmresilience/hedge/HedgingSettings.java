package io.github.llmresilience.hedge;

import java.time.Duration;

import io.github.llmresilience.settings.InvalidSettingException;
import io.github.llmresilience.timeout.MeasuredTimeout;
import io.github.llmresilience.timeout.TimeLimits;
import org.jspecify.annotations.Nullable;

/**
 * First-token hedging of streams, and optionally of reactive calls. A component out of
 * its range fails construction, whether or not {@code enabled} is set.
 *
 * @param enabled whether a late first element sends a hedge at all
 * @param calls whether reactive calls ({@code execute}) are hedged too, when their answer
 * is late; blocking calls never are
 * @param delay how long an attempt waits for its first element (a call's, for its answer)
 * before the hedge is sent, or {@code null} for its target's measured 95th percentile
 * time to first token (for a call, its latency; half the timeout in force until
 * {@link #MIN_SAMPLES} are measured); when set, positive, at most {@link TimeLimits#MAX}
 * @param budget hedges allowed as a share of the chain's hedgeable calls over the window;
 * above 0, at most 1
 * @param window how long calls and hedges count for the budget; positive
 * @param minimum hedges always allowed per window whatever the calls, so that a quiet
 * service can still hedge a little (0 to 1,000,000)
 */
public record HedgingSettings(boolean enabled, boolean calls, @Nullable Duration delay, double budget, Duration window,
		int minimum) {

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

	/**
	 * Off; when enabled, streams only, the measured delay, 5 % of streams over 10 s, at
	 * least one.
	 */
	public static HedgingSettings defaults() {
		return new HedgingSettings(false, false, null, DEFAULT_BUDGET, DEFAULT_WINDOW, DEFAULT_MINIMUM);
	}

	/** These settings, enabled or not. */
	public HedgingSettings withEnabled(boolean enabled) {
		return new HedgingSettings(enabled, this.calls, this.delay, this.budget, this.window, this.minimum);
	}

	/** These settings, hedging reactive calls or not. */
	public HedgingSettings withCalls(boolean calls) {
		return new HedgingSettings(this.enabled, calls, this.delay, this.budget, this.window, this.minimum);
	}

	/** These settings with another delay ({@code null}: measured). */
	public HedgingSettings withDelay(@Nullable Duration delay) {
		return new HedgingSettings(this.enabled, this.calls, delay, this.budget, this.window, this.minimum);
	}

	/** These settings with another budget and window. */
	public HedgingSettings withBudget(double budget, Duration window, int minimum) {
		return new HedgingSettings(this.enabled, this.calls, this.delay, budget, window, minimum);
	}

	/**
	 * How long an attempt waits for its first element (a call's, for its answer) before a
	 * hedge: the configured delay; else the target's 95th percentile once
	 * {@link #MIN_SAMPLES} are measured (an attempt slower than 19 in 20 is late,
	 * whatever the target's normal); else half the timeout in force, which the target's
	 * own timeout would cut only later. Never below {@link #MIN_DELAY}.
	 * @param timeout the target's timeout (a stream's first-token one), which measures
	 * its latencies
	 * @return the delay in nanoseconds
	 */
	public long delayNanos(MeasuredTimeout timeout) {
		long nanos;
		if (this.delay != null) {
			nanos = this.delay.toNanos();
		}
		else if (timeout.samples() >= MIN_SAMPLES) {
			nanos = timeout.p95Nanos();
		}
		else {
			nanos = timeout.current().toNanos() / 2;
		}
		return Math.max(MIN_DELAY.toNanos(), nanos);
	}

}
