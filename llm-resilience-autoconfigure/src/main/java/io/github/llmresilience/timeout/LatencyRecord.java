package io.github.llmresilience.timeout;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The most recent {@link #CAPACITY} latencies of one target's calls, in a ring of
 * primitives: recording allocates nothing and takes no lock. A call that timed out is
 * recorded at the length it ran, a lower bound of its latency (see
 * {@link MeasuredTimeout}). The 99th percentile is recomputed (a selection over a copy in
 * a scratch array kept for it, not a sort) only every {@link #REFRESH} samples, so
 * reading it on the hot path is a field read.
 *
 * <p>
 * Writes race benignly: two threads recording at once may land in neighbouring slots in
 * any order, and a reader may see a slot mid-update as its previous value. For a
 * percentile over a thousand samples that noise is irrelevant.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
final class LatencyRecord {

	/** Samples kept; a power of two. */
	public static final int CAPACITY = 1024;

	/** Samples between two recomputations of the percentile. */
	static final int REFRESH = 256;

	private final long[] ring = new long[CAPACITY];

	/** Where the percentile is selected; only touched under this record's lock. */
	private final long[] scratch = new long[CAPACITY];

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

	/**
	 * Every sample recorded since the start (the ring keeps the last {@link #CAPACITY}).
	 */
	public long samples() {
		return this.count.get();
	}

	/** The 99th percentile of the kept samples; zero when there are none. */
	public Duration p99() {
		return Duration.ofNanos(p99Nanos());
	}

	/**
	 * The 99th percentile in nanoseconds, recomputed at most every {@link #REFRESH}
	 * samples.
	 */
	public long p99Nanos() {
		long count = this.count.get();
		if (count == 0) {
			return 0;
		}
		if (count - this.p99At >= REFRESH || this.p99Nanos < 0) {
			synchronized (this) {
				if (count - this.p99At >= REFRESH || this.p99Nanos < 0) {
					int size = (int) Math.min(count, CAPACITY);
					System.arraycopy(this.ring, 0, this.scratch, 0, size);
					this.p99Nanos = percentile(this.scratch, size, 0.99);
					this.p99At = count;
				}
			}
		}
		return this.p99Nanos;
	}

	/** The nearest-rank percentile of the whole array, by selection in place. */
	static long percentile(long[] values, double rank) {
		return percentile(values, values.length, rank);
	}

	/**
	 * The nearest-rank percentile of the first {@code size} values, by selection in
	 * place.
	 */
	static long percentile(long[] values, int size, double rank) {
		int k = (int) Math.ceil(rank * size) - 1;
		k = Math.max(0, Math.min(size - 1, k));
		int left = 0;
		int right = size - 1;
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
