package io.github.llmresilience.sample.drill;

import java.time.Duration;
import java.util.Locale;

import io.github.llmresilience.execute.CallOptions;
import io.github.llmresilience.execute.TimeoutSettings;
import io.github.llmresilience.pool.LeaseSettings;

/**
 * The fleet pools drill: the pools drill's interactive-plus-background mix spread over
 * many pods in one process, most of it on a few busy pods (a sticky load balancer, a
 * batch job on one pod), against one quota scope of the simulator's primary, with the
 * scope shared by leases, by equal parts or not at all.
 *
 * <p>
 * The defaults: 10 pods; 80 % of the load on 2 of them (a fifth of the pods, at least
 * one), the rest spread evenly over the others; primary accepts 600 requests a minute; an
 * interactive load of half of that (300 calls, evenly spaced on each pod over 60 s)
 * beside a background job of two minutes of the whole quota (1200 calls, each pod's part
 * sent at once). Every pod's pools are on (interactive 70 %, background 20 %, evaluation
 * 10 %). A {@code timeScale} below 1 shrinks every duration and raises the limit alike,
 * as in the pools drill.
 *
 * @param sharing how the pods share the scope
 * @param pods the pods
 * @param skew the percentage of the load on the busy pods
 * @param requestsPerMinute the requests a (scaled) minute primary accepts
 * @param timeScale factor on every duration (1: real time; 0.1: ten times faster)
 * @param duration how long the interactive load runs
 * @param interactiveCalls the interactive calls of the whole fleet
 * @param backgroundCalls the background job's calls of the whole fleet, all sent at the
 * start
 * @param syncInterval how often a pod syncs with the fleet (fleet modes)
 * @param leasePeriod how long a lease lasts ({@link Sharing#LEASES})
 */
public record PoolsFleetDrillPlan(Sharing sharing, int pods, int skew, int requestsPerMinute, double timeScale,
		Duration duration, int interactiveCalls, int backgroundCalls, Duration syncInterval, Duration leasePeriod) {

	public PoolsFleetDrillPlan {
		if (pods < 1 || pods > 100) {
			throw new IllegalArgumentException("--pods must be between 1 and 100, was " + pods);
		}
		if (skew < 0 || skew > 100) {
			throw new IllegalArgumentException("--skew must be between 0 and 100 (percent), was " + skew);
		}
		if (requestsPerMinute < 10 || requestsPerMinute > 100_000) {
			throw new IllegalArgumentException("--rpm must be between 10 and 100000, was " + requestsPerMinute);
		}
		if (!(timeScale >= 0.01 && timeScale <= 10)) {
			throw new IllegalArgumentException("--time-scale must be between 0.01 and 10, was " + timeScale);
		}
	}

	/** How the pods share the scope's capacity. */
	public enum Sharing {

		/** Fleet mode with leases: each pod leases slices sized to its demand. */
		LEASES("on", "leases (fleet mode, --fleet=on)"),

		/** Fleet mode without leases: each pod partitions an equal part. */
		EQUAL("equal", "equal parts (fleet mode without leases, --fleet=equal)"),

		/** No fleet mode: each pod believes the whole scope is its own. */
		PER_POD("off", "none (each pod alone, --fleet=off)");

		private final String option;

		private final String described;

		Sharing(String option, String described) {
			this.option = option;
			this.described = described;
		}

		/** The {@code --fleet} value that names it. */
		public String option() {
			return this.option;
		}

		String described() {
			return this.described;
		}

		/** The sharing named by {@code --fleet=on|equal|off}. */
		public static Sharing of(String option) {
			for (Sharing sharing : values()) {
				if (sharing.option.equals(option.toLowerCase(Locale.ROOT))) {
					return sharing;
				}
			}
			throw new IllegalArgumentException("--fleet must be on, equal or off, was '" + option + "'");
		}

	}

	/** The drill at real time; see the class comment for why these figures. */
	public static PoolsFleetDrillPlan of(Sharing sharing, int pods, int skew, int requestsPerMinute) {
		return new PoolsFleetDrillPlan(sharing, pods, skew, requestsPerMinute, 1, Duration.ofSeconds(60),
				requestsPerMinute / 2, 2 * requestsPerMinute, Duration.ofSeconds(1), LeaseSettings.DEFAULT_PERIOD);
	}

	/** The same drill with leases of this period (before scaling). */
	public PoolsFleetDrillPlan leasePeriod(Duration period) {
		if (period.compareTo(Duration.ofMillis(100)) < 0 || period.compareTo(Duration.ofSeconds(60)) > 0) {
			throw new IllegalArgumentException("--lease-period must be between 100ms and 60s, was " + period);
		}
		return new PoolsFleetDrillPlan(this.sharing, this.pods, this.skew, this.requestsPerMinute, this.timeScale,
				this.duration, this.interactiveCalls, this.backgroundCalls, this.syncInterval, period);
	}

	/**
	 * The same drill with every duration multiplied by {@code factor} and the rate
	 * divided by it: the limit a real minute and the background job grow alike; the
	 * interactive calls stay as many, closer together.
	 */
	public PoolsFleetDrillPlan scaled(double factor) {
		return new PoolsFleetDrillPlan(this.sharing, this.pods, this.skew, this.requestsPerMinute,
				this.timeScale * factor, scale(this.duration, factor), this.interactiveCalls,
				(int) Math.round(this.backgroundCalls / factor), scale(this.syncInterval, factor),
				scale(this.leasePeriod, factor));
	}

	/** The busy pods: a fifth of them, at least one (all of them when there is one). */
	public int busyPods() {
		return Math.max(1, Math.round(this.pods / 5f));
	}

	/** Whether pod {@code index} (from 0) is a busy one. */
	public boolean busy(int index) {
		return index < busyPods();
	}

	/**
	 * Pod {@code index}'s part of {@code calls}: the busy pods share {@code skew} % of
	 * them evenly, the others the rest; the parts add up to {@code calls} exactly.
	 */
	public int part(int index, int calls) {
		return (int) (Math.floor(upTo(index + 1, calls)) - Math.floor(upTo(index, calls)));
	}

	/** The exact parts of pods 0 to {@code end} (exclusive), added up. */
	private double upTo(int end, int calls) {
		int busy = busyPods();
		int idle = this.pods - busy;
		double busyWeight = (idle == 0) ? 1 : this.skew / 100.0;
		double sum = Math.min(end, busy) * busyWeight / busy;
		if (end > busy) {
			sum += (end - busy) * (1 - busyWeight) / idle;
		}
		// A rounding step short of a whole call must not lose it.
		return sum * calls + 1e-9;
	}

	/** The limit the simulator enforces, per real minute. */
	public long simulatorLimit() {
		return Math.max(1, Math.round(this.requestsPerMinute / this.timeScale));
	}

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

	private static Duration scale(Duration duration, double factor) {
		return Duration.ofNanos(Math.round(duration.toNanos() * factor));
	}

}
