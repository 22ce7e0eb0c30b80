package io.github.llmresilience.sample.drill;

import java.time.Duration;

import io.github.llmresilience.execute.CallOptions;
import io.github.llmresilience.execute.TimeoutSettings;

/**
 * The pools drill: an interactive load beside a background job that would take the whole
 * quota, against a simulated target whose requests a minute are limited, with quota pools
 * on or off.
 *
 * <p>
 * The defaults: primary accepts 60 requests a minute; an interactive call every 2 s for
 * 60 s (30 calls, half the quota); a background job of 120 calls sent at once (two
 * minutes of the whole quota). With pools on, the scope's capacity is learned from the
 * simulator's {@code x-ratelimit-limit-requests} on a first call, and split interactive
 * 70 %, background 20 %, evaluation 10 %. A {@code timeScale} below 1 shrinks every
 * duration and raises the limit alike (0.1: 600 requests a real minute, a call every 0.2
 * s): the counts stay those of the full drill, only faster.
 *
 * @param pools whether quota pools partition the scope
 * @param requestsPerMinute the requests a (scaled) minute primary accepts
 * @param timeScale factor on every duration (1: real time; 0.1: ten times faster)
 * @param duration how long the interactive load runs
 * @param interactivePeriod the time between two interactive calls
 * @param backgroundCalls the calls of the background job, all sent at the start (by
 * default two minutes of the whole quota)
 */
public record PoolsDrillPlan(boolean pools, int requestsPerMinute, double timeScale, Duration duration,
		Duration interactivePeriod, int backgroundCalls) {

	public PoolsDrillPlan {
		if (requestsPerMinute < 1 || requestsPerMinute > 100_000) {
			throw new IllegalArgumentException("--rpm must be between 1 and 100000, was " + requestsPerMinute);
		}
		if (!(timeScale >= 0.01 && timeScale <= 10)) {
			throw new IllegalArgumentException("--time-scale must be between 0.01 and 10, was " + timeScale);
		}
		if (backgroundCalls < 0 || backgroundCalls > 100_000) {
			throw new IllegalArgumentException("--background must be between 0 and 100000, was " + backgroundCalls);
		}
	}

	/** The drill at real time; see the class comment for why these figures. */
	public static PoolsDrillPlan of(boolean pools, int requestsPerMinute) {
		return new PoolsDrillPlan(pools, requestsPerMinute, 1, Duration.ofSeconds(60), Duration.ofSeconds(2),
				2 * requestsPerMinute);
	}

	/**
	 * The same drill with every duration multiplied by {@code factor} and the rate
	 * divided by it: the limit a real minute, and the background job (minutes of the
	 * whole quota) grow alike.
	 */
	public PoolsDrillPlan scaled(double factor) {
		return new PoolsDrillPlan(this.pools, this.requestsPerMinute, this.timeScale * factor,
				scale(this.duration, factor), scale(this.interactivePeriod, factor),
				(int) Math.round(this.backgroundCalls / factor));
	}

	/** The interactive calls: one every period for the duration. */
	public int interactiveCalls() {
		return (int) (this.duration.toNanos() / this.interactivePeriod.toNanos());
	}

	/** The limit the simulator enforces, per real minute. */
	/**
	 * The options of an interactive call: none at real time; at another scale, a deadline
	 * of the default call's (60 s) times the scale, as every other duration.
	 */
	public CallOptions interactiveOptions() {
		if (this.timeScale == 1) {
			return CallOptions.NONE;
		}
		return CallOptions
			.deadline(Duration.ofNanos(Math.round(TimeoutSettings.DEFAULT_CALL.toNanos() * this.timeScale)));
	}

	public long simulatorLimit() {
		return Math.max(1, Math.round(this.requestsPerMinute / this.timeScale));
	}

	private static Duration scale(Duration duration, double factor) {
		return Duration.ofNanos(Math.round(duration.toNanos() * factor));
	}

}
