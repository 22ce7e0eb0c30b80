package io.github.llmresilience.pool;

import java.time.Duration;

import io.github.llmresilience.settings.InvalidSettingException;

/**
 * How a pod leases its slices of each quota scope's capacity from the fleet (fleet mode
 * with quota pools partitioned). A component out of its range fails construction.
 *
 * @param enabled whether the pods of a fleet lease each scope's capacity from one shared
 * bucket in the store (sized to each pod's demand), rather than each partitioning an
 * equal part of it
 * @param period how long a lease lasts: a pod draws on it for at most this long, timed
 * from when it asked; between 100 ms and 60 s
 * @param exchangeTimeout how long a pod waits for the store's answer to one exchange
 * before it gives the exchange up (and what it returned in it); at least 10 ms and less
 * than {@code period}
 */
public record LeaseSettings(boolean enabled, Duration period, Duration exchangeTimeout) {

	/** The default period: 5 s. */
	public static final Duration DEFAULT_PERIOD = Duration.ofSeconds(5);

	/** The default exchange timeout: 1 s. */
	public static final Duration DEFAULT_EXCHANGE_TIMEOUT = Duration.ofSeconds(1);

	public LeaseSettings {
		if (period == null || period.compareTo(Duration.ofMillis(100)) < 0
				|| period.compareTo(Duration.ofSeconds(60)) > 0) {
			throw new InvalidSettingException("period", "must be between 100ms and 60s", period);
		}
		if (exchangeTimeout == null || exchangeTimeout.compareTo(Duration.ofMillis(10)) < 0) {
			throw new InvalidSettingException("exchangeTimeout", "must be at least 10ms", exchangeTimeout);
		}
		if (exchangeTimeout.compareTo(period) >= 0) {
			throw new InvalidSettingException("exchangeTimeout", "must be less than", "period", period,
					exchangeTimeout);
		}
	}

	/** Off, with the default period and timeout. */
	public static LeaseSettings defaults() {
		return new LeaseSettings(false, DEFAULT_PERIOD, DEFAULT_EXCHANGE_TIMEOUT);
	}

}
