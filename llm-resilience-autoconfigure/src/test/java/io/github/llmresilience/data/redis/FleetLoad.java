package io.github.llmresilience.data.redis;

import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.llmresilience.execute.LlmUnavailableException;

/**
 * Calls from every pod at a steady pace, each pod starting at a random offset within its
 * period, as a fleet's traffic arrives: counts what was served, what was refused because
 * no target could serve, and anything else (which no test expects).
 */
final class FleetLoad implements AutoCloseable {

	final AtomicInteger served = new AtomicInteger();

	final AtomicInteger unavailable = new AtomicInteger();

	final Queue<Throwable> unexpected = new ConcurrentLinkedQueue<>();

	/** Each call's start (epoch ms) and time taken (µs), served or not. */
	final Queue<long[]> timings = new ConcurrentLinkedQueue<>();

	private final ScheduledExecutorService executor = Executors.newScheduledThreadPool(16, (runnable) -> {
		Thread thread = new Thread(runnable, "fleet-load");
		thread.setDaemon(true);
		return thread;
	});

	FleetLoad(FleetPods fleet, List<FleetPods.Pod> pods, Duration period) {
		long periodMicros = period.toNanos() / 1000;
		for (FleetPods.Pod pod : pods) {
			long offset = ThreadLocalRandom.current().nextLong(periodMicros);
			this.executor.scheduleAtFixedRate(() -> {
				long start = System.nanoTime();
				long startMillis = System.currentTimeMillis();
				try {
					fleet.call(pod);
					this.served.incrementAndGet();
				}
				catch (LlmUnavailableException ex) {
					this.unavailable.incrementAndGet();
				}
				catch (Throwable ex) {
					this.unexpected.add(ex);
				}
				finally {
					this.timings.add(new long[] { startMillis, (System.nanoTime() - start) / 1000 });
				}
			}, offset, periodMicros, TimeUnit.MICROSECONDS);
		}
	}

	/** Let the load run for a while: the traffic is what is being measured. */
	static void runFor(Duration duration) {
		try {
			new CountDownLatch(1).await(duration.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** The longest call (µs) that started in [from, to) (epoch ms), 0 when none did. */
	long longestMicros(long from, long to) {
		return this.timings.stream()
			.filter((timing) -> timing[0] >= from && timing[0] < to)
			.mapToLong((timing) -> timing[1])
			.max()
			.orElse(0);
	}

	/**
	 * The longest call that started in [from, to) (epoch ms): its start (epoch ms) and
	 * time taken (µs), zeros when none did.
	 */
	long[] longest(long from, long to) {
		return this.timings.stream()
			.filter((timing) -> timing[0] >= from && timing[0] < to)
			.max(java.util.Comparator.comparingLong((long[] timing) -> timing[1]))
			.orElse(new long[] { from, 0 });
	}

	/** The median call (µs) that started in [from, to) (epoch ms), 0 when none did. */
	long medianMicros(long from, long to) {
		long[] sorted = this.timings.stream()
			.filter((timing) -> timing[0] >= from && timing[0] < to)
			.mapToLong((timing) -> timing[1])
			.sorted()
			.toArray();
		return (sorted.length == 0) ? 0 : sorted[sorted.length / 2];
	}

	/** How many calls started in [from, to) (epoch ms). */
	long count(long from, long to) {
		return this.timings.stream().filter((timing) -> timing[0] >= from && timing[0] < to).count();
	}

	int calls() {
		return this.served.get() + this.unavailable.get() + this.unexpected.size();
	}

	/** Start no more calls and wait for those under way, interrupting none. */
	void finish() {
		this.executor.shutdown();
		try {
			this.executor.awaitTermination(30, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public void close() {
		this.executor.shutdownNow();
		try {
			this.executor.awaitTermination(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
