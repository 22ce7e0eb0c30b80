package io.github.llmresilience.retry;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;

/**
 * Allows retries up to a share of the calls seen over a sliding window (at least a
 * minimum per window), so that an outage cannot multiply the load on a provider that is
 * already failing. The window is kept in ten buckets; counts are lock-free and may
 * overshoot by the number of threads deciding at the same instant.
 * <p>
 * Time is the engine's monotonic source ({@link System#nanoTime()} on the system clock),
 * and a call is counted at the time its caller already read: counting every call must not
 * cost a clock read of its own (on a virtual machine, a read costs as much as the rest of
 * the count).
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public final class RetryBudget {

	private static final int BUCKETS = 10;

	private final LongSupplier nanoTime;

	private final double ratio;

	private final int minimum;

	private final long bucketNanos;

	/** The bucket the last count fell in; none yet at first. */
	private volatile Bucket last = new Bucket(Long.MIN_VALUE, Long.MIN_VALUE);

	/** Per bucket: [epoch, calls, retries]. */
	private final AtomicLongArray slots = new AtomicLongArray(BUCKETS * 3);

	/**
	 * @param nanoTime the engine's monotonic time source, in nanoseconds
	 * @param ratio the share of calls that may be retried
	 * @param window how long calls and retries count
	 * @param minimum retries allowed per window whatever the calls
	 */
	public RetryBudget(LongSupplier nanoTime, double ratio, Duration window, int minimum) {
		this.nanoTime = nanoTime;
		this.ratio = ratio;
		this.minimum = minimum;
		this.bucketNanos = Math.max(1, window.toNanos() / BUCKETS);
		// No bucket yet: older than any time (System.nanoTime() may be negative).
		for (int i = 0; i < BUCKETS; i++) {
			this.slots.set(i * 3, Long.MIN_VALUE);
		}
	}

	public static RetryBudget of(LongSupplier nanoTime, RetrySettings settings) {
		return new RetryBudget(nanoTime, settings.budgetRatio(), settings.budgetWindow(), settings.budgetMinimum());
	}

	/** Count one call (a first attempt), now. */
	public void onCall() {
		onCall(this.nanoTime.getAsLong());
	}

	/**
	 * Count one call (a first attempt) at a time the caller has read.
	 * @param nowNanos the time on this budget's source
	 */
	public void onCall(long nowNanos) {
		this.slots.incrementAndGet(current(epoch(nowNanos)) * 3 + 1);
	}

	/**
	 * Take one retry from the budget.
	 * @return {@code false} when the budget is spent
	 */
	public boolean tryRetry() {
		long epoch = epoch(this.nanoTime.getAsLong());
		int slot = current(epoch);
		long calls = 0;
		long retries = 0;
		for (int i = 0; i < BUCKETS; i++) {
			long bucketEpoch = this.slots.get(i * 3);
			if (bucketEpoch > epoch - BUCKETS) {
				calls += this.slots.get(i * 3 + 1);
				retries += this.slots.get(i * 3 + 2);
			}
		}
		long allowed = Math.max(this.minimum, share(calls));
		if (retries >= allowed) {
			return false;
		}
		this.slots.incrementAndGet(slot * 3 + 2);
		return true;
	}

	/**
	 * The ratio's share of the calls, rounded down. The product is nudged up by far less
	 * than one retry first: {@code 0.7 * 90} is {@code 62.99999999999999} in binary
	 * floating point, and 70 % of 90 calls is 63 retries, not 62.
	 */
	private long share(long calls) {
		return (long) Math.floor(calls * this.ratio * (1 + 1e-12));
	}

	/**
	 * Retries taken and calls seen in the current window, for diagnostics: {calls,
	 * retries}.
	 */
	public long[] window() {
		long epoch = epoch(this.nanoTime.getAsLong());
		long calls = 0;
		long retries = 0;
		for (int i = 0; i < BUCKETS; i++) {
			if (this.slots.get(i * 3) > epoch - BUCKETS) {
				calls += this.slots.get(i * 3 + 1);
				retries += this.slots.get(i * 3 + 2);
			}
		}
		return new long[] { calls, retries };
	}

	/**
	 * The bucket a time falls in. The last bucket found is kept with its start, so that
	 * counting a call is a comparison: a 64-bit division by a value known only at run
	 * time costs tens of cycles, on every call.
	 */
	private long epoch(long nanos) {
		Bucket last = this.last;
		long into = nanos - last.start;
		if (into >= 0 && into < this.bucketNanos) {
			return last.epoch;
		}
		long epoch = Math.floorDiv(nanos, this.bucketNanos);
		this.last = new Bucket(epoch, epoch * this.bucketNanos);
		return epoch;
	}

	/** A bucket's number and the time it starts at. */
	private record Bucket(long epoch, long start) {
	}

	/**
	 * The slot of a bucket, reset first when it still holds an older bucket. A time older
	 * than the slot's bucket (a call counted at a start read long before) counts in the
	 * newer bucket rather than erase it.
	 */
	private int current(long epoch) {
		int slot = (int) Math.floorMod(epoch, BUCKETS);
		long held = this.slots.get(slot * 3);
		if (held < epoch) {
			synchronized (this) {
				if (this.slots.get(slot * 3) < epoch) {
					this.slots.set(slot * 3 + 1, 0);
					this.slots.set(slot * 3 + 2, 0);
					this.slots.set(slot * 3, epoch);
				}
			}
		}
		return slot;
	}

}
