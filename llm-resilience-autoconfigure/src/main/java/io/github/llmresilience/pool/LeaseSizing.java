package io.github.llmresilience.pool;

/**
 * The arithmetic of leasing (docs/pools.md, "Fleet mode: leases"): how much a pod asks
 * for, when it asks again, and how its demand is measured. Pure functions of their
 * arguments.
 */
final class LeaseSizing {

	/** A lease covers the demand expected over its period and a quarter more. */
	static final double HEADROOM = 1.25;

	/**
	 * Expected demand below this many over a period is none: an idle pod holds nothing.
	 */
	static final double IDLE = 0.5;

	private static final double NANOS_PER_MINUTE = 60e9;

	private LeaseSizing() {
	}

	/**
	 * What to ask for in one dimension.
	 * @param ratePerSecond the pod's recent demand (taken and refused), per second
	 * @param waiting calls refused since the last measurement: asked for on top
	 * @param periodNanos the lease's period
	 * @param perMinute the scope's whole capacity in the dimension; zero when not known
	 * (then nothing is leased and the dimension is never short)
	 * @param each what one call takes in the dimension (1 request; its tokens)
	 * @return {@code ceil(rate × period × 1.25) + waiting × each}, zero when the expected
	 * demand is below half a call, at most {@link #most}
	 */
	static long ask(double ratePerSecond, long waiting, long periodNanos, long perMinute, long each) {
		if (perMinute <= 0) {
			return 0;
		}
		double expected = Math.max(0, ratePerSecond) * periodNanos / 1e9;
		long want = (expected < IDLE * Math.max(1, each)) ? 0 : (long) Math.ceil(expected * HEADROOM);
		want += Math.max(0, waiting) * Math.max(1, each);
		return Math.min(want, most(periodNanos, perMinute));
	}

	/**
	 * The most one lease may hold: two periods of the whole scope's refill, at least 1,
	 * at most the capacity. A busy pod leases again when it runs low rather than taking
	 * the whole bucket at once, so that a pod that starts asking finds room.
	 */
	static long most(long periodNanos, long perMinute) {
		double twoPeriods = Math.ceil(2.0 * perMinute * periodNanos / NANOS_PER_MINUTE);
		return Math.max(1, Math.min(perMinute, (long) twoPeriods));
	}

	/**
	 * Whether a lease runs low: what is left would not last until the next look (two
	 * ticks of demand), or is below a quarter of what was granted.
	 */
	static boolean low(long left, long granted, double ratePerSecond, long tickNanos) {
		double twoTicks = Math.max(0, ratePerSecond) * 2 * tickNanos / 1e9;
		return left <= 0 || left < Math.ceil(granted / 4.0) || left < twoTicks;
	}

	/**
	 * The demand rate after a window: half the window's rate, half the rate before (an
	 * exponentially weighted average whose weight halves every window).
	 */
	static double rate(double before, long counted, long windowNanos) {
		if (windowNanos <= 0) {
			return before;
		}
		double now = counted * 1e9 / windowNanos;
		return 0.5 * now + 0.5 * before;
	}

	/**
	 * How long until the fleet's bucket refills this many at the whole scope's rate: the
	 * least a pod without a lease waits.
	 */
	static long refillNanos(long missing, long perMinute) {
		if (missing <= 0 || perMinute <= 0) {
			return 0;
		}
		double nanos = Math.ceil(missing * NANOS_PER_MINUTE / perMinute);
		return (nanos >= Long.MAX_VALUE) ? Long.MAX_VALUE : (long) nanos;
	}

}
