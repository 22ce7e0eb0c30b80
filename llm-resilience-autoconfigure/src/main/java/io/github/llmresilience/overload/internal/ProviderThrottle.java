package io.github.llmresilience.overload.internal;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

import io.github.llmresilience.overload.ClientThrottlingSettings;

/**
 * One provider account's requests and accepts over a sliding window, and the local
 * refusal they call for: {@code max(0, (requests - K * accepts) / (requests + 1))}, the
 * SRE book's client-side throttling. A request is counted when it ends (sent and settled)
 * or when it is refused here; only an overload or availability failure is not an accept.
 * Refusing locally counts a request and no accept, so the probability holds while the
 * provider keeps failing and falls as soon as the requests let through are accepted
 * again.
 * <p>
 * The window is kept in twelve buckets, lock-free, as the retry budget's; counts may
 * overshoot by the threads counting at the same instant.
 */
public final class ProviderThrottle {

	private static final int BUCKETS = 12;

	private final String key;

	private final ClientThrottlingSettings settings;

	private final LongSupplier nanoTime;

	private final DoubleSupplier random;

	private final long bucketNanos;

	/** Per bucket: [epoch, requests, accepts]. */
	private final AtomicLongArray slots = new AtomicLongArray(BUCKETS * 3);

	/** Whether the first-shed traffic class is being refused: the published state. */
	private final AtomicBoolean refusing = new AtomicBoolean();

	private final Transition transition;

	/**
	 * @param nanoTime the engine's monotonic source
	 * @param random a uniform draw in [0, 1)
	 * @param transition told when refusing starts and stops
	 */
	public ProviderThrottle(String key, ClientThrottlingSettings settings, LongSupplier nanoTime, DoubleSupplier random,
			Transition transition) {
		this.key = key;
		this.settings = settings;
		this.nanoTime = nanoTime;
		this.random = random;
		this.transition = transition;
		this.bucketNanos = Math.max(1, settings.window().toNanos() / BUCKETS);
		for (int i = 0; i < BUCKETS; i++) {
			this.slots.set(i * 3, Long.MIN_VALUE);
		}
	}

	public String key() {
		return this.key;
	}

	/**
	 * Whether a request of a pool is let through now; a refused one is counted as a
	 * request that was not accepted.
	 */
	public boolean tryPass(String pool) {
		long epoch = Math.floorDiv(this.nanoTime.getAsLong(), this.bucketNanos);
		long[] window = window(epoch);
		long requests = window[0];
		long accepts = window[1];
		if (requests < this.settings.minimumRequests()) {
			follow(false);
			return true;
		}
		follow(probability(requests, accepts, this.settings.lowestMultiplier()) > 0);
		double p = probability(requests, accepts, this.settings.multiplier(pool));
		if (p <= 0 || this.random.getAsDouble() >= p) {
			return true;
		}
		count(epoch, false);
		return false;
	}

	/**
	 * A request sent ended: accepted unless it was an overload or availability failure.
	 */
	public void settled(boolean accepted) {
		count(Math.floorDiv(this.nanoTime.getAsLong(), this.bucketNanos), accepted);
	}

	/** Forget every request and accept counted. */
	public synchronized void forget() {
		for (int i = 0; i < BUCKETS; i++) {
			this.slots.set(i * 3, Long.MIN_VALUE);
			this.slots.set(i * 3 + 1, 0);
			this.slots.set(i * 3 + 2, 0);
		}
		follow(false);
	}

	/** The SRE book's refusal probability. */
	static double probability(long requests, long accepts, double k) {
		return Math.max(0, (requests - k * accepts) / (requests + 1));
	}

	/**
	 * The refusal probability of the first-shed traffic class now, 0 below the minimum;
	 * with the window's {requests, accepts}.
	 */
	public double[] state() {
		long[] window = window(Math.floorDiv(this.nanoTime.getAsLong(), this.bucketNanos));
		long requests = window[0];
		long accepts = window[1];
		double p = (requests < this.settings.minimumRequests()) ? 0
				: probability(requests, accepts, this.settings.lowestMultiplier());
		return new double[] { p, requests, accepts };
	}

	/** The window's {requests, accepts} at a bucket's epoch. */
	private long[] window(long epoch) {
		long requests = 0;
		long accepts = 0;
		for (int i = 0; i < BUCKETS; i++) {
			if (this.slots.get(i * 3) > epoch - BUCKETS) {
				requests += this.slots.get(i * 3 + 1);
				accepts += this.slots.get(i * 3 + 2);
			}
		}
		return new long[] { requests, accepts };
	}

	/**
	 * How long until a refused request may be let through: the window moves a bucket that
	 * often.
	 */
	public long retryNanos() {
		return this.bucketNanos;
	}

	private void follow(boolean refusing) {
		if (this.refusing.get() != refusing && this.refusing.compareAndSet(!refusing, refusing)) {
			this.transition.changed(this.key, refusing);
		}
	}

	private void count(long epoch, boolean accepted) {
		int slot = (int) Math.floorMod(epoch, (long) BUCKETS);
		int base = slot * 3;
		if (this.slots.get(base) < epoch) {
			// A new bucket: cleared once, under the lock (its counts are a window old).
			synchronized (this) {
				if (this.slots.get(base) < epoch) {
					this.slots.set(base + 1, 0);
					this.slots.set(base + 2, 0);
					this.slots.set(base, epoch);
				}
			}
		}
		this.slots.incrementAndGet(base + 1);
		if (accepted) {
			this.slots.incrementAndGet(base + 2);
		}
	}

	/** Told when a provider account's first-shed class starts or stops being refused. */
	@FunctionalInterface
	public interface Transition {

		void changed(String key, boolean refusing);

	}

}
