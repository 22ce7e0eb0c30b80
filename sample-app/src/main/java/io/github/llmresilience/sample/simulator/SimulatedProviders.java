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

	public SimulatedProviders(Clock clock, Map<String, SimulatedVendor> targets) {
		this.clock = clock;
		Map<String, SimulatedTarget> byName = new LinkedHashMap<>();
		targets.forEach((name, vendor) -> byName.put(name, new SimulatedTarget(name, vendor)));
		this.targets = Collections.unmodifiableMap(byName);
		this.since = clock.instant();
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

	/** Every target back to normal, every count back to zero. */
	public void reset() {
		this.targets.values().forEach(SimulatedTarget::reset);
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
