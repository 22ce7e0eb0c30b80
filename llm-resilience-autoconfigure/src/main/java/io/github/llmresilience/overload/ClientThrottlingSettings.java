package io.github.llmresilience.overload;

import java.time.Duration;
import java.util.Map;

import io.github.llmresilience.pool.PoolSettings;
import io.github.llmresilience.settings.InvalidSettingException;
import io.github.llmresilience.timeout.TimeLimits;

/**
 * Client-side adaptive throttling, as Google's SRE book has it: per provider and account,
 * requests and accepts are counted over a sliding window, where only overload and
 * availability failures are not accepts; a request is refused locally, before it is sent,
 * with the probability {@code max(0, (requests - K * accepts) / (requests + 1))}. Each
 * traffic class has its own {@code K}: the smaller it is, the sooner the class is shed,
 * so background and evaluation traffic go first and interactive last. A component out of
 * its range fails construction.
 *
 * @param enabled whether requests are refused locally at all
 * @param window how long requests and accepts count; 1 second to 1 hour
 * @param minimumRequests requests in the window below which nothing is refused (a
 * provider that failed once in a quiet minute is not throttled); 1 to 1,000,000
 * @param multiplier {@code K} for a pool that has none of its own; 1 to 100
 * @param multipliers {@code K} by pool name; each 1 to 100
 */
public record ClientThrottlingSettings(boolean enabled, Duration window, int minimumRequests, double multiplier,
		Map<String, Double> multipliers) {

	/** The default {@link #window()}: 2 minutes, as in the SRE book. */
	public static final Duration DEFAULT_WINDOW = Duration.ofMinutes(2);

	/** The default {@link #minimumRequests()}: 20. */
	public static final int DEFAULT_MINIMUM_REQUESTS = 20;

	/** The default {@link #multiplier()}: 2, the SRE book's. */
	public static final double DEFAULT_MULTIPLIER = 2.0;

	/** The default {@code K} of the interactive pool: 3, shed last. */
	public static final double DEFAULT_INTERACTIVE_MULTIPLIER = 3.0;

	/**
	 * Check every component.
	 * @throws InvalidSettingException naming the first component out of its range
	 */
	public ClientThrottlingSettings {
		TimeLimits.requirePositive("window", window);
		if (window.compareTo(Duration.ofSeconds(1)) < 0 || window.compareTo(Duration.ofHours(1)) > 0) {
			throw new InvalidSettingException("window", "must be between 1s and 1h", window);
		}
		if (minimumRequests < 1 || minimumRequests > 1_000_000) {
			throw new InvalidSettingException("minimumRequests", "must be between 1 and 1000000", minimumRequests);
		}
		requireMultiplier("multiplier", multiplier);
		multipliers = Map.copyOf((multipliers != null) ? multipliers : Map.of());
		multipliers.forEach((pool, k) -> requireMultiplier("multipliers." + pool, k));
	}

	private static void requireMultiplier(String name, double k) {
		if (!(k >= 1 && k <= 100)) {
			throw new InvalidSettingException(name, "must be between 1 and 100", k);
		}
	}

	/** On, 2 minutes, from 20 requests, K 2 and 3 for interactive calls. */
	public static ClientThrottlingSettings defaults() {
		return new ClientThrottlingSettings(true, DEFAULT_WINDOW, DEFAULT_MINIMUM_REQUESTS, DEFAULT_MULTIPLIER,
				Map.of(PoolSettings.INTERACTIVE, DEFAULT_INTERACTIVE_MULTIPLIER));
	}

	/** The same settings, on or off. */
	public ClientThrottlingSettings withEnabled(boolean enabled) {
		return new ClientThrottlingSettings(enabled, this.window, this.minimumRequests, this.multiplier,
				this.multipliers);
	}

	/** {@code K} of a pool: its own, else {@link #multiplier()}. */
	public double multiplier(String pool) {
		Double k = this.multipliers.get(pool);
		return (k != null) ? k : this.multiplier;
	}

	/** The smallest {@code K} of any pool: the first class to be shed. */
	public double lowestMultiplier() {
		double lowest = this.multiplier;
		for (double k : this.multipliers.values()) {
			lowest = Math.min(lowest, k);
		}
		return lowest;
	}

}
