package io.github.llmresilience.overload;

import java.util.Locale;

import io.github.llmresilience.settings.InvalidSettingException;

/**
 * The adaptive limit on calls in flight to each failure domain: learned from what the
 * domain answers, by one of Netflix concurrency-limits' algorithms. Off by default; per
 * pod by design (as TCP's window is per connection): each pod learns its own share of a
 * domain's capacity from its own answers. A component out of its range fails
 * construction.
 *
 * @param enabled whether calls in flight to a failure domain are limited at all
 * @param algorithm how the limit learns
 * @param initialLimit the limit before any answer; between {@code minLimit} and
 * {@code maxLimit}
 * @param minLimit the lowest the limit goes; 1 to 10,000
 * @param maxLimit the highest the limit goes; {@code minLimit} to 10,000
 * @param backoffRatio what AIMD multiplies the limit by on a drop; 0.5 (TCP's halving) to
 * 0.99
 */
public record ConcurrencySettings(boolean enabled, Algorithm algorithm, int initialLimit, int minLimit, int maxLimit,
		double backoffRatio) {

	/**
	 * The default {@link #initialLimit()}: the default {@link #maxLimit()}, 200 calls.
	 * The limit starts out of the way and falls on a domain's first drops (halving, it
	 * takes five to reach 6): a guess below a healthy domain's load would refuse its
	 * calls. A start at 20 refused 40 of 60 calls sent at once to a healthy backup.
	 */
	public static final int DEFAULT_INITIAL_LIMIT = 200;

	/** The default {@link #minLimit()}: 1 call. */
	public static final int DEFAULT_MIN_LIMIT = 1;

	/** The default {@link #maxLimit()}: 200 calls. */
	public static final int DEFAULT_MAX_LIMIT = 200;

	/**
	 * The default {@link #backoffRatio()}: 0.5, TCP's halving. An overload answer is an
	 * explicit congestion signal; in the brownout drill, halving sent 46 and 54 overload
	 * answers where AIMD's own 0.9 sent 129 and 118, for as many calls served.
	 */
	public static final double DEFAULT_BACKOFF_RATIO = 0.5;

	private static final int MOST = 10_000;

	/**
	 * Check every component.
	 * @throws InvalidSettingException naming the first component out of its range
	 */
	public ConcurrencySettings {
		if (algorithm == null) {
			throw new InvalidSettingException("algorithm", "must be one of aimd, vegas, gradient2", null);
		}
		if (minLimit < 1 || minLimit > MOST) {
			throw new InvalidSettingException("minLimit", "must be between 1 and " + MOST, minLimit);
		}
		if (maxLimit > MOST) {
			throw new InvalidSettingException("maxLimit", "must be at most " + MOST, maxLimit);
		}
		if (maxLimit < minLimit) {
			throw new InvalidSettingException("maxLimit", "must be at least", "minLimit", minLimit, maxLimit);
		}
		if (initialLimit < minLimit) {
			throw new InvalidSettingException("initialLimit", "must be at least", "minLimit", minLimit, initialLimit);
		}
		if (initialLimit > maxLimit) {
			throw new InvalidSettingException("initialLimit", "must not exceed", "maxLimit", maxLimit, initialLimit);
		}
		if (!(backoffRatio >= 0.5 && backoffRatio <= 0.99)) {
			throw new InvalidSettingException("backoffRatio", "must be between 0.5 and 0.99", backoffRatio);
		}
	}

	/** Settings with the default {@link #backoffRatio()}. */
	public ConcurrencySettings(boolean enabled, Algorithm algorithm, int initialLimit, int minLimit, int maxLimit) {
		this(enabled, algorithm, initialLimit, minLimit, maxLimit, DEFAULT_BACKOFF_RATIO);
	}

	/** Off; AIMD from 20 calls, between 1 and 200, halved on a drop, when turned on. */
	public static ConcurrencySettings defaults() {
		return new ConcurrencySettings(false, Algorithm.AIMD, DEFAULT_INITIAL_LIMIT, DEFAULT_MIN_LIMIT,
				DEFAULT_MAX_LIMIT);
	}

	/** The same settings, on or off. */
	public ConcurrencySettings withEnabled(boolean enabled) {
		return new ConcurrencySettings(enabled, this.algorithm, this.initialLimit, this.minLimit, this.maxLimit,
				this.backoffRatio);
	}

	/** How a limit learns: concurrency-limits' algorithms, by their names there. */
	public enum Algorithm {

		/**
		 * Additive increase, multiplicative decrease: one more while answers come back on
		 * time and the limit is used, times {@code backoffRatio} (half by default) on
		 * every overload or availability failure and every answer slower than the
		 * breaker's slow-call threshold.
		 */
		AIMD,

		/**
		 * TCP Vegas: the queue the domain builds is estimated from the latency over its
		 * lowest, and the limit moves to keep it small.
		 */
		VEGAS,

		/**
		 * Gradient: the limit follows the ratio of the long-term to the short-term
		 * latency.
		 */
		GRADIENT2;

		/**
		 * The name used in properties: {@code aimd}, {@code vegas}, {@code gradient2}.
		 */
		public String id() {
			return name().toLowerCase(Locale.ROOT);
		}

	}

}
