package io.github.llmresilience.fleet;

import java.time.Duration;
import java.util.Objects;

import io.github.llmresilience.settings.InvalidSettingException;
import io.github.llmresilience.timeout.TimeLimits;
import org.jspecify.annotations.Nullable;

/**
 * How a pod shares state with its fleet.
 *
 * @param namespace the fleet's name: pods with the same namespace share one state
 * (letters, digits, {@code .}, {@code -} and {@code _}; 1 to 100 characters)
 * @param syncInterval how often a pod sends its counts and reads the fleet's state (10 ms
 * to 1 minute)
 * @param window the time window the fleet's failure and slow-call rates are counted over
 * (1 s to 1 hour, at least the sync interval)
 * @param probeInterval how often an open failure domain lets one trial through for the
 * whole fleet, when shorter than the breaker's open duration; {@code null} to follow the
 * open duration
 * @param probeLease the longest one pod holds the right to probe: a pod that wins it and
 * dies gives it up after this (1 s to 1 hour)
 * @param gateJitter the most a mirrored gate's end is moved later at random, so that pods
 * do not all return at the same millisecond (0 to 10 s)
 * @param commandTimeout the longest one round trip to the store may take before the pod
 * counts itself disconnected (10 ms to 1 minute)
 */
public record FleetSettings(String namespace, Duration syncInterval, Duration window, @Nullable Duration probeInterval,
		Duration probeLease, Duration gateJitter, Duration commandTimeout) {

	/**
	 * Check every component.
	 * @throws IllegalArgumentException naming the first component out of its range
	 */
	public FleetSettings {
		Objects.requireNonNull(namespace, "namespace");
		if (!namespace.matches("[A-Za-z0-9._-]{1,100}")) {
			throw new InvalidSettingException("namespace", "must be 1 to 100 letters, digits, '.', '-' or '_'",
					"'" + namespace + "'");
		}
		requireBetween("syncInterval", syncInterval, Duration.ofMillis(10), Duration.ofMinutes(1));
		requireBetween("window", window, Duration.ofSeconds(1), Duration.ofHours(1));
		if (window.compareTo(syncInterval) < 0) {
			throw new InvalidSettingException("window", "must be at least", "syncInterval", syncInterval, window);
		}
		if (probeInterval != null) {
			requireBetween("probeInterval", probeInterval, Duration.ofMillis(100), TimeLimits.MAX);
		}
		requireBetween("probeLease", probeLease, Duration.ofSeconds(1), Duration.ofHours(1));
		TimeLimits.requireNotNegative("gateJitter", gateJitter);
		if (gateJitter.compareTo(Duration.ofSeconds(10)) > 0) {
			throw new InvalidSettingException("gateJitter", "must be between 0 and 10 s", gateJitter);
		}
		requireBetween("commandTimeout", commandTimeout, Duration.ofMillis(10), Duration.ofMinutes(1));
	}

	/**
	 * The defaults: sync every second, a 30 s window, probes at the breaker's pace, a 1
	 * min probe lease, gates jittered by up to 250 ms, 1 s per round trip.
	 */
	public static FleetSettings defaults(String namespace) {
		return new FleetSettings(namespace, Duration.ofSeconds(1), Duration.ofSeconds(30), null, Duration.ofMinutes(1),
				Duration.ofMillis(250), Duration.ofSeconds(1));
	}

	private static void requireBetween(String name, @Nullable Duration value, Duration min, Duration max) {
		if (value == null || value.compareTo(min) < 0 || value.compareTo(max) > 0) {
			throw new InvalidSettingException(name, "must be between " + min + " and " + max, value);
		}
	}

}
