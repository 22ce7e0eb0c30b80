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
