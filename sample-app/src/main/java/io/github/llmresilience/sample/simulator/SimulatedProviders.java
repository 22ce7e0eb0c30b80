package io.github.llmresilience.sample.simulator;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The simulated targets, their modes and their statistics: what the admin API and the
 * drills change and read.
 */
public final class SimulatedProviders {

	private final Clock clock;

	private final Map<String, SimulatedTarget> targets;

	private volatile Instant since;

	private final Map<String, Integer> rateLimits;

	public SimulatedProviders(Clock clock, Map<String, SimulatedVendor> targets) {
		this(clock, targets, Map.of());
	}

	/**
	 * @param rateLimits requests a minute each target accepts, by name (none when absent)
	 */
	public SimulatedProviders(Clock clock, Map<String, SimulatedVendor> targets, Map<String, Integer> rateLimits) {
		this.clock = clock;
		Map<String, SimulatedTarget> byName = new LinkedHashMap<>();
		targets.forEach((name, vendor) -> byName.put(name, new SimulatedTarget(name, vendor)));
		this.targets = Collections.unmodifiableMap(byName);
		this.rateLimits = Map.copyOf(rateLimits);
		this.rateLimits.forEach((name, perMinute) -> target(name).rateLimit(perMinute, clock));
		this.since = clock.instant();
	}

	/**
	 * Limit a target to this many requests a minute, from now with a full minute's
	 * bucket; {@code 0} lifts the limit. Beyond it the target answers 429 with
	 * {@code retry-after} and its vendor's rate-limit headers; every answer states the
	 * limit.
	 */
	public void rateLimit(String target, long perMinute) {
		target(target).rateLimit(perMinute, this.clock);
	}

	public Collection<SimulatedTarget> targets() {
		return this.targets.values();
	}

	/**
	 * @throws UnknownTarget naming the targets there are
	 */
	public SimulatedTarget target(String name) {
		SimulatedTarget target = this.targets.get(name);
		if (target == null) {
			throw new UnknownTarget(name, this.targets.keySet());
		}
		return target;
	}

	/** Put a target into a mode, from now on. */
	public void mode(String target, ModeSetting mode) {
		target(target).mode(mode);
	}

	/** Put a target into a mode for a while, after which it is normal again. */
	public void mode(String target, ModeSetting mode, Duration duration) {
		target(target).mode(mode.lasting(duration, this.clock.instant()));
	}

	/**
	 * Every target back to normal (its configured rate limit, full), every count back to
	 * zero.
	 */
	public void reset() {
		this.targets.values().forEach(SimulatedTarget::reset);
		this.targets.values()
			.forEach((target) -> target.rateLimit(this.rateLimits.getOrDefault(target.name(), 0), this.clock));
		this.since = this.clock.instant();
	}

	public Stats stats() {
		Map<String, TargetStats> byTarget = new TreeMap<>();
		this.targets.forEach((name, target) -> byTarget.put(name, target.stats()));
		return new Stats(this.since, byTarget);
	}

	/**
	 * What the simulated targets received since the last reset.
	 *
	 * @param since the last reset (or the start)
	 * @param targets each target's statistics, by name
	 */
	public record Stats(Instant since, Map<String, TargetStats> targets) {

		public TargetStats target(String name) {
			return this.targets.get(name);
		}

	}

	/** A name that is not a simulated target. */
	public static final class UnknownTarget extends RuntimeException {

		UnknownTarget(String name, Collection<String> known) {
			super("No simulated target named '" + name + "'; targets: " + known);
		}

	}

}
