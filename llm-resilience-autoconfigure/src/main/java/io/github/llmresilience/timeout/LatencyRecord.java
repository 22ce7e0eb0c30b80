package io.github.llmresilience.timeout;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The most recent {@link #CAPACITY} latencies of one target's calls, in a ring of
 * primitives: recording allocates nothing and takes no lock. A call that timed out is
 * recorded at the length it ran, a lower bound of its latency (see
 * {@link MeasuredTimeout}). The 99th percentile is recomputed (one pass over the ring
 * keeping its largest values, not a sort) only every {@link #REFRESH} samples, so reading
 * it on the hot path is a field read.
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

	/** How many of the largest values a scan keeps at most. */
	private static final int LARGEST = 16;

	/** The ring's blocks of {@link #REFRESH} samples. */
	private static final int BLOCKS = CAPACITY / REFRESH;

	/** How many of the ring's values are at or above its 99th percentile: 11. */
	private static final int KEPT = CAPACITY - rankIndex(CAPACITY, 0.99);

	private final long[] ring = new long[CAPACITY];

	/**
	 * The largest values kept while the ring is scanned for its percentile: the 99th of
	 * 1,024 samples is the smallest of the 11 largest. Only touched under this record's
	 * lock.
	 */
	private final long[] largest = new long[LARGEST];

	/** Each block's {@link #KEPT} largest values, once the block is complete. */
	private final long[][] blockLargest = new long[BLOCKS][KEPT];

	/** Which block of samples (counted from the first) each block's values are of. */
	private final long[] blockOf = new long[BLOCKS];

	/** The blocks' largest values together, newest block first. */
	private final long[] merged = new long[BLOCKS * KEPT];

	LatencyRecord() {
		Arrays.fill(this.blockOf, -1);
	}

	private final AtomicLong count = new AtomicLong();

	private volatile long p99Nanos = -1;

	private volatile long p99At = Long.MIN_VALUE;

	/** The last 95th percentile and the sample count it was taken at. */
	private volatile long p95Nanos = -1;

	private volatile long p95At = Long.MIN_VALUE;

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
		long count = samples();
		if (count == 0) {
			return 0;
		}
		if (count - this.p99At >= REFRESH || this.p99Nanos < 0) {
			synchronized (this) {
				if (count - this.p99At >= REFRESH || this.p99Nanos < 0) {
					keepBlocks(count);
					this.p99Nanos = (count < CAPACITY) ? percentile(this.ring, (int) count, 0.99, this.largest)
							: p99OfBlocks(count);
					this.p99At = count;
				}
			}
		}
		return this.p99Nanos;
	}

	/**
	 * The 95th percentile of the kept samples in nanoseconds (zero when there are none),
	 * for a hedge's delay: taken over a copy of the ring, so recomputed at most every
	 * {@link #REFRESH} samples once the ring is full, and at each new sample before (a
	 * few hundred values, while few calls are measured).
	 */
	public long p95Nanos() {
		long count = samples();
		if (count == 0) {
			return 0;
		}
		long step = (count < REFRESH) ? 1 : REFRESH;
		if (count - this.p95At >= step || this.p95Nanos < 0) {
			synchronized (this) {
				if (count - this.p95At >= step || this.p95Nanos < 0) {
					int size = (int) Math.min(count, CAPACITY);
					this.p95Nanos = percentile(Arrays.copyOf(this.ring, size), size, 0.95);
					this.p95At = count;
				}
			}
		}
		return this.p95Nanos;
	}

	/**
	 * Find the largest values of each complete block among the last {@link #BLOCKS} not
	 * yet read: normally the one just completed, which no newer sample has overwritten
	 * yet.
	 */
	private void keepBlocks(long count) {
		long newest = count / REFRESH - 1;
		for (long block = Math.max(0, newest - BLOCKS + 1); block <= newest; block++) {
			int at = (int) (block % BLOCKS);
			if (this.blockOf[at] != block) {
				percentile(this.ring, at * REFRESH, REFRESH, REFRESH - KEPT, this.blockLargest[at]);
				this.blockOf[at] = block;
			}
		}
	}

	/**
	 * The 99th percentile of the last {@link #BLOCKS} complete blocks of {@link #REFRESH}
	 * samples, a ring's worth: the smallest of its {@link #KEPT} largest values, which
	 * are among the {@link #KEPT} largest of each block. Each block's are found once,
	 * when it has just completed ({@link #keepBlocks}), so a refresh reads one block and
	 * the kept values of the others, not the whole ring.
	 */
	private long p99OfBlocks(long count) {
		long newest = count / REFRESH - 1;
		for (int i = 0; i < BLOCKS; i++) {
			int at = (int) ((newest - i) % BLOCKS);
			System.arraycopy(this.blockLargest[at], 0, this.merged, i * KEPT, KEPT);
		}
		return percentile(this.merged, 0, this.merged.length, this.merged.length - KEPT, this.largest);
	}

	/** The nearest-rank percentile of the whole array, by selection in place. */
	static long percentile(long[] values, double rank) {
		return percentile(values, values.length, rank);
	}

	/**
	 * The nearest-rank percentile of the first {@code size} values, read without moving
	 * them when the rank is high: the smallest of the {@code size - k} largest, kept in a
	 * small heap during one pass. A selection over a copy (the way before) cost about 20
	 * ns per recorded sample, one in eight of a successful call; the pass costs a few.
	 * Falls back to selecting over a copy when more values than {@code heap} holds are
	 * above the rank.
	 * @param heap where the largest values are kept
	 */
	static long percentile(long[] values, int size, double rank, long[] heap) {
		int k = rankIndex(size, rank);
		if (size - k > heap.length) {
			long[] copy = Arrays.copyOf(values, size);
			return percentile(copy, size, rank);
		}
		return percentile(values, 0, size, k, heap);
	}

	/**
	 * The value at index {@code k} of {@code values[from, from + size)} once sorted: the
	 * smallest of its {@code size - k} largest, which are left in {@code heap}.
	 */
	static long percentile(long[] values, int from, int size, int k, long[] heap) {
		int kept = size - k;
		// A min-heap of the largest values so far: its root is the answer at the end.
		int filled = 0;
		for (int i = from; i < from + size; i++) {
			long value = values[i];
			if (filled < kept) {
				int at = filled++;
				while (at > 0) {
					int parent = (at - 1) >>> 1;
					if (heap[parent] <= value) {
						break;
					}
					heap[at] = heap[parent];
					at = parent;
				}
				heap[at] = value;
			}
			else if (value > heap[0]) {
				siftDown(heap, kept, value);
			}
		}
		return heap[0];
	}

	/** Put a value at the heap's root and move it down to its place. */
	private static void siftDown(long[] heap, int size, long value) {
		int at = 0;
		while (true) {
			int child = 2 * at + 1;
			if (child >= size) {
				break;
			}
			if (child + 1 < size && heap[child + 1] < heap[child]) {
				child++;
			}
			if (heap[child] >= value) {
				break;
			}
			heap[at] = heap[child];
			at = child;
		}
		heap[at] = value;
	}

	/** The index of the nearest-rank percentile in {@code size} sorted values. */
	private static int rankIndex(int size, double rank) {
		int k = (int) Math.ceil(rank * size) - 1;
		return Math.max(0, Math.min(size - 1, k));
	}

	/**
	 * The nearest-rank percentile of the first {@code size} values, by selection in
	 * place.
	 */
	static long percentile(long[] values, int size, double rank) {
		int k = rankIndex(size, rank);
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
