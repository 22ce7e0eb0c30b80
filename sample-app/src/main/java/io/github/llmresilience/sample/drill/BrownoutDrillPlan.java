package io.github.llmresilience.sample.drill;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The brownout drill: calls through the chain {@code primary -> secondary} while the load
 * ramps up to three times what primary can serve at once, both targets in the simulator's
 * {@code brownout} mode, secondary with room for what primary cannot take.
 *
 * <p>
 * The load is open: calls arrive at their times whatever became of the earlier ones, as a
 * service's users do. It is counted in calls in flight at the simulator's normal latency
 * (its mean, times {@code sample.simulator.latency-scale}): the rate grows linearly from
 * none to {@link #peak()} times primary's capacity over the ramp, and holds there. The
 * defaults: primary serves 8 at once and secondary 16 (the 16 primary cannot take at the
 * peak, and no more), a 30 s ramp and a 20 s hold: at the real latency (mean 0.86 s)
 * about 28 calls a second at the peak and 980 calls in all. A {@code timeScale} below 1
 * shrinks the ramp, the hold and the calls' deadline alike; the rate follows the
 * simulator's latency scale, not the time scale.
 *
 * @param capacity the requests primary serves at once
 * @param secondaryCapacity the requests secondary serves at once
 * @param peak the load at its peak, in multiples of primary's capacity
 * @param timeScale factor on every duration (1: real time; 0.1: ten times faster)
 * @param ramp how long the load takes from none to the peak
 * @param hold how long the load holds at the peak
 * @param deadline each call's deadline
 */
public record BrownoutDrillPlan(int capacity, int secondaryCapacity, double peak, double timeScale, Duration ramp,
		Duration hold, Duration deadline) {

	public BrownoutDrillPlan {
		if (capacity < 1 || capacity > 1000) {
			throw new IllegalArgumentException("--capacity must be between 1 and 1000, was " + capacity);
		}
		if (secondaryCapacity < 1 || secondaryCapacity > 10_000) {
			throw new IllegalArgumentException(
					"The secondary's capacity must be between 1 and 10000, was " + secondaryCapacity);
		}
		if (!(peak > 0 && peak <= 100)) {
			throw new IllegalArgumentException("The peak must be above 0 and at most 100, was " + peak);
		}
		if (!(timeScale >= 0.01 && timeScale <= 10)) {
			throw new IllegalArgumentException("--time-scale must be between 0.01 and 10, was " + timeScale);
		}
		if (ramp.isNegative() || hold.isNegative() || ramp.plus(hold).isZero()) {
			throw new IllegalArgumentException("The ramp and the hold must not be negative, nor both zero");
		}
		if (deadline.isNegative() || deadline.isZero()) {
			throw new IllegalArgumentException("The deadline must be positive, was " + deadline);
		}
	}

	/**
	 * The drill at real time; see the class comment for why these figures.
	 * @param deadline each call's deadline (the sample's {@code sample.answers.deadline})
	 */
	public static BrownoutDrillPlan of(int capacity, Duration deadline) {
		return new BrownoutDrillPlan(capacity, 2 * capacity, 3, 1, Duration.ofSeconds(20), Duration.ofSeconds(15),
				deadline);
	}

	/**
	 * The same drill with the ramp, the hold and the deadline multiplied by the factor.
	 */
	public BrownoutDrillPlan scaled(double factor) {
		return new BrownoutDrillPlan(this.capacity, this.secondaryCapacity, this.peak, this.timeScale * factor,
				scale(this.ramp, factor), scale(this.hold, factor), scale(this.deadline, factor));
	}

	/** Calls in flight at the peak, at the normal latency. */
	public double peakInFlight() {
		return this.peak * this.capacity;
	}

	/**
	 * When each call starts, from the drill's start: the load {@code L(t) = R * t / ramp}
	 * calls a second during the ramp and {@code R} during the hold, the k-th call where
	 * its integral reaches k.
	 * @param peakRate calls a second at the peak
	 */
	public List<Duration> arrivals(double peakRate) {
		double ramp = this.ramp.toNanos() / 1e9;
		double hold = this.hold.toNanos() / 1e9;
		double rampCalls = peakRate * ramp / 2;
		long calls = (long) Math.floor(rampCalls + peakRate * hold);
		List<Duration> arrivals = new ArrayList<>();
		for (long k = 1; k <= calls; k++) {
			double seconds = (k <= rampCalls) ? Math.sqrt(2 * ramp * k / peakRate) : ramp + (k - rampCalls) / peakRate;
			arrivals.add(Duration.ofNanos(Math.round(seconds * 1e9)));
		}
		return arrivals;
	}

	private static Duration scale(Duration duration, double factor) {
		return Duration.ofNanos(Math.round(duration.toNanos() * factor));
	}

}
