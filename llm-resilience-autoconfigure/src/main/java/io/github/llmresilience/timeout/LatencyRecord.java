package io.github.llmresilience.timeout;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The most recent {@link #CAPACITY} latencies of one target's successful calls, in a ring
 * of primitives: recording allocates nothing and takes no lock. The 99th percentile is
 * recomputed (a selection over a copy, not a sort) only every {@link #REFRESH} samples,
 * so reading it on the hot path is a field read.
 *
 * <p>Writes race benignly: two threads recording at once may land in neighbouring slots
 * in any order, and a reader may see a slot mid-update as its previous value. For a
 * percentile over a thousand samples that noise is irrelevant.
 */
public final class LatencyRecord {

	/** Samples kept; a power of two. */
	public static final int CAPACITY = 1024;

	/** Samples between two recomputations of the percentile. */
	static final int REFRESH = 64;

	private final long[] ring = new long[CAPACITY];

	private final AtomicLong count = new AtomicLong();

	private volatile long p99Nanos = -1;

	private volatile long p99At = Long.MIN_VALUE;

	public void record(long nanos) {
		long index = this.count.getAndIncrement();
		this.ring[(int) (index & (CAPACITY - 1))] = Math.max(0, nanos);
	}

	public void record(Duration latency) {
		record(latency.toNanos());
	}

	/** Every sample recorded since the start (the ring keeps the last {@link #CAPACITY}). */
	public long samples() {
		return this.count.get();
	}

	/** The 99th percentile of the kept samples; zero when there are none. */
	public Duration p99() {
		long count = this.count.get();
		if (count == 0) {
			return Duration.ZERO;
		}
		if (count - this.p99At >= REFRESH || this.p99Nanos < 0) {
			synchronized (this) {
				if (count - this.p99At >= REFRESH || this.p99Nanos < 0) {
					this.p99Nanos = percentile(Arrays.copyOf(this.ring, (int) Math.min(count, CAPACITY)), 0.99);
					this.p99At = count;
				}
			}
		}
		return Duration.ofNanos(this.p99Nanos);
	}

	/** The nearest-rank percentile, by selection in place. */
	static long percentile(long[] values, double rank) {
		int k = (int) Math.ceil(rank * values.length) - 1;
		k = Math.max(0, Math.min(values.length - 1, k));
		int left = 0;
		int right = values.length - 1;
		while (left < right) {
			long pivot = values[(left + right) >>> 1];
			int i = left;
			int j = right;
			while (i <= j) {
				while (values[i] < pivot) {
					i++;
				}
				while (values[j] > pivot) {
					j--;
				}
				if (i <= j) {
					long swap = values[i];
					values[i] = values[j];
					values[j] = swap;
					i++;
					j--;
				}
			}
			if (k <= j) {
				right = j;
			}
			else if (k >= i) {
				left = i;
			}
			else {
				break;
			}
		}
		return values[k];
	}

}
