package io.github.llmresilience.sample.drill;

import java.time.Duration;

import io.github.llmresilience.breaker.BreakerSettings;

/**
 * The fleet drill: many pods in one process calling primary through the chain
 * {@code primary -> secondary} while primary is in outage, with or without fleet mode.
 *
 * <p>
 * The defaults are the design's fleet: 40 pods, 300 calls a minute in all (7.5 a pod, one
 * every 8 s), the default breaker (20 calls, 10 minimum, 50 %, open 30 s) and the default
 * fleet window of 30 s with a sync every second. A 60 s outage gives each pod 7 or 8
 * calls: under the 10 its own breaker needs (alone, a pod would need 80 s of failures),
 * while the fleet sees 150 calls in every 30 s window. A probe interval of 5 s lets one
 * trial through every 5 s for the whole fleet, so that it sees the provider back within
 * seconds. A {@code timeScale} below 1 shrinks every duration and the time between a
 * pod's calls alike: the counts stay those of the full drill, only faster.
 *
 * @param pods the pods
 * @param callsPerMinute calls a minute across all pods
 * @param fleet whether the pods share their state through Redis
 * @param timeScale factor on every duration (1: real time; 0.1: ten times faster)
 * @param leadIn how long the pods call a healthy provider before the outage
 * @param outage how long primary is in outage
 * @param afterRecovery the longest the drill waits for a call served by primary once the
 * outage has ended
 * @param window the fleet's counting window
 * @param syncInterval how often a pod syncs with the fleet
 * @param probeInterval how often the open domain lets one trial through for the fleet
 * @param breaker each pod's breaker
 */
public record FleetDrillPlan(int pods, int callsPerMinute, boolean fleet, double timeScale, Duration leadIn,
		Duration outage, Duration afterRecovery, Duration window, Duration syncInterval, Duration probeInterval,
		BreakerSettings breaker) {

	public FleetDrillPlan {
		if (pods < 1 || pods > 1000) {
			throw new IllegalArgumentException("--pods must be between 1 and 1000, was " + pods);
		}
		if (callsPerMinute < 1 || callsPerMinute > 600_000) {
			throw new IllegalArgumentException("--rpm must be between 1 and 600000, was " + callsPerMinute);
		}
		if (!(timeScale >= 0.01 && timeScale <= 10)) {
			throw new IllegalArgumentException("--time-scale must be between 0.01 and 10, was " + timeScale);
		}
	}

	/** The design's fleet at real time; see the class comment for why these durations. */
	public static FleetDrillPlan of(int pods, int callsPerMinute, boolean fleet) {
		return new FleetDrillPlan(pods, callsPerMinute, fleet, 1, Duration.ofSeconds(5), Duration.ofSeconds(60),
				Duration.ofSeconds(60), Duration.ofSeconds(30), Duration.ofSeconds(1), Duration.ofSeconds(5),
				BreakerSettings.defaults());
	}

	/**
	 * The same drill with every duration (and the time between two calls of a pod)
	 * multiplied by {@code factor}.
	 */
	public FleetDrillPlan scaled(double factor) {
		BreakerSettings b = this.breaker;
		return new FleetDrillPlan(this.pods, this.callsPerMinute, this.fleet, this.timeScale * factor,
				scale(this.leadIn, factor), scale(this.outage, factor), scale(this.afterRecovery, factor),
				scale(this.window, factor), scale(this.syncInterval, factor), scale(this.probeInterval, factor),
				new BreakerSettings(b.slidingWindowSize(), b.minimumCalls(), b.failureRateThreshold(),
						b.slowCallDuration(), b.slowCallRateThreshold(), scale(b.openDuration(), factor),
						scale(b.openDurationMax(), factor), b.halfOpenCalls()));
	}

	/** The time between two calls of one pod. */
	public Duration callPeriod() {
		return Duration.ofNanos(Math.round(60e9 * this.timeScale * this.pods / this.callsPerMinute));
	}

	private static Duration scale(Duration duration, double factor) {
		return Duration.ofNanos(Math.round(duration.toNanos() * factor));
	}

}
