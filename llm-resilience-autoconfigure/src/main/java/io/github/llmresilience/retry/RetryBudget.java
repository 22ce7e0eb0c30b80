package io.github.llmresilience.retry;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Allows retries up to a share of the calls seen over a sliding window (at least a
 * minimum per window), so that an outage cannot multiply the load on a provider that is
 * already failing. The window is kept in ten buckets; counts are lock-free and may
 * overshoot by the number of threads deciding at the same instant.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public final class RetryBudget {

	private static final int BUCKETS = 10;

	private final Clock clock;

	private final double ratio;

	private final int minimum;

	private final long bucketMillis;

	/** Per bucket: [epoch, calls, retries]. */
	private final AtomicLongArray slots = new AtomicLongArray(BUCKETS * 3);

	public RetryBudget(Clock clock, double ratio, Duration window, int minimum) {
		this.clock = clock;
		this.ratio = ratio;
		this.minimum = minimum;
		this.bucketMillis = Math.max(1, window.toMillis() / BUCKETS);
	}

	public static RetryBudget of(Clock clock, RetrySettings settings) {
		return new RetryBudget(clock, settings.budgetRatio(), settings.budgetWindow(), settings.budgetMinimum());
	}

	/** Count one call (a first attempt). */
	public void onCall() {
		this.slots.incrementAndGet(current() * 3 + 1);
	}

	/**
	 * Take one retry from the budget.
	 * @return {@code false} when the budget is spent
	 */
	public boolean tryRetry() {
		int slot = current();
		long calls = 0;
		long retries = 0;
		long epoch = this.clock.millis() / this.bucketMillis;
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
		long epoch = this.clock.millis() / this.bucketMillis;
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

	/** The slot of the current bucket, reset first when it still holds an old bucket. */
	private int current() {
		long epoch = this.clock.millis() / this.bucketMillis;
		int slot = (int) (epoch % BUCKETS);
		long held = this.slots.get(slot * 3);
		if (held != epoch) {
			synchronized (this) {
				if (this.slots.get(slot * 3) != epoch) {
					this.slots.set(slot * 3 + 1, 0);
					this.slots.set(slot * 3 + 2, 0);
					this.slots.set(slot * 3, epoch);
				}
			}
		}
		return slot;
	}

}
