package io.github.llmresilience.pool;

import java.time.Duration;
import java.util.regex.Pattern;

import io.github.llmresilience.settings.InvalidSettingException;
import io.github.llmresilience.timeout.TimeLimits;

/**
 * One traffic class. A component out of its range fails construction.
 *
 * @param name the pool's name, as a call names it ({@code CallOptions.pool(name)}): 1 to
 * 40 letters, digits, '-', '_' or '.'
 * @param share the pool's share of each quota scope's capacity, in percent: between 1 and
 * 100 (the shares of all pools add up to at most 100)
 * @param maxWait the longest a call of this pool stands in a quota scope's line for its
 * turn, rather than fail (a provider's rate limit is waited out up to the call's
 * deadline); zero never waits; at most {@link TimeLimits#MAX}
 * @param maxQueued the most calls of this pool that wait at once; one more fails at once:
 * between 0 and 1,000,000
 */
public record PoolSettings(String name, int share, Duration maxWait, int maxQueued) {

	/** The pool of a call that names none. */
	public static final String INTERACTIVE = "interactive";

	/** The pool of jobs: bulk work that may wait minutes. */
	public static final String BACKGROUND = "background";

	/** The pool of evaluation runs: the least urgent. */
	public static final String EVALUATION = "evaluation";

	/** The default queue bound of every pool. */
	public static final int DEFAULT_MAX_QUEUED = 1000;

	private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,40}");

	public PoolSettings {
		requireName("name", name);
		if (share < 1 || share > 100) {
			throw new InvalidSettingException("share", "must be between 1 and 100 (percent)", share);
		}
		TimeLimits.requireNotNegative("maxWait", maxWait);
		if (maxQueued < 0 || maxQueued > 1_000_000) {
			throw new InvalidSettingException("maxQueued", "must be between 0 and 1000000", maxQueued);
		}
	}

	/** Interactive: 70 %, waits at most 2 s. */
	public static PoolSettings interactive() {
		return new PoolSettings(INTERACTIVE, 70, Duration.ofSeconds(2), DEFAULT_MAX_QUEUED);
	}

	/** Background: 20 %, waits up to 120 s. */
	public static PoolSettings background() {
		return new PoolSettings(BACKGROUND, 20, Duration.ofSeconds(120), DEFAULT_MAX_QUEUED);
	}

	/** Evaluation: 10 %, waits up to 600 s. */
	public static PoolSettings evaluation() {
		return new PoolSettings(EVALUATION, 10, Duration.ofSeconds(600), DEFAULT_MAX_QUEUED);
	}

	/**
	 * Check a pool's name.
	 * @param component what the name is, for the message
	 * @return the name
	 * @throws IllegalArgumentException when it is not 1 to 40 letters, digits, '-', '_'
	 * or '.'
	 */
	public static String requireName(String component, String name) {
		if (name == null || !NAME.matcher(name).matches()) {
			throw new InvalidSettingException(component, "must be 1 to 40 letters, digits, '-', '_' or '.'",
					(name != null) ? "'" + name + "'" : null);
		}
		return name;
	}

}
