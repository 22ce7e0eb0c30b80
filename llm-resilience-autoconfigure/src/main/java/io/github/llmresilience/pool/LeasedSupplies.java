package io.github.llmresilience.pool;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

import io.github.llmresilience.pool.LeaseStore.Exchange;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;

/**
 * The supply of every quota scope of a pod in fleet mode with leases: one
 * {@link LeasedSupply} per scope, and the background that looks at them and sends their
 * exchanges to the {@link LeaseStore}. The background runs on a scheduler given to
 * {@link #start}: every tick (a tenth of the period, between 10 ms and 100 ms), and at
 * once when a call finds its lease short. {@link #look()} is the same look, for a test to
 * drive.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public final class LeasedSupplies implements SupplySource, AutoCloseable {

	private static final Logger logger = LoggerFactory.getLogger(LeasedSupplies.class);

	private final LeaseStore store;

	private final LeaseSettings settings;

	private final String holder;

	private final LongSupplier nanoTime;

	private final SupplySource parts;

	private final Map<String, LeasedSupply> supplies = new ConcurrentHashMap<>();

	private final AtomicBoolean nudged = new AtomicBoolean();

	private volatile @Nullable Scheduler scheduler;

	private volatile @Nullable Disposable ticks;

	/** Whether the ticks have stopped ({@link #release()}). */
	private volatile boolean stopped;

	/**
	 * @param store where the fleet's buckets are
	 * @param settings the period and the exchange's timeout
	 * @param pod this pod's id (a random incarnation is added: each run holds its own
	 * leases)
	 * @param nanoTime the engine's monotonic time source
	 * @param parts the pod's equal part of a scope, when the store cannot be reached
	 * ({@code SupplySource.of(BucketSource.local(nanoTime))})
	 */
	public LeasedSupplies(LeaseStore store, LeaseSettings settings, String pod, LongSupplier nanoTime,
			SupplySource parts) {
		this.store = Objects.requireNonNull(store);
		this.settings = Objects.requireNonNull(settings);
		this.holder = pod + "#" + UUID.randomUUID().toString().substring(0, 8);
		this.nanoTime = Objects.requireNonNull(nanoTime);
		this.parts = Objects.requireNonNull(parts);
	}

	@Override
	public ScopeSupply supply(String scope, Capacity capacity, int pods) {
		LeasedSupply supply = this.supplies.computeIfAbsent(scope, (key) -> new LeasedSupply(key, this.holder, capacity,
				pods, this.settings, this.nanoTime, this.parts, this::nudge));
		// The first exchange goes now, not at the next tick.
		nudge();
		return supply;
	}

	/** The supplies made, by scope. */
	public Map<String, LeasedSupply> supplies() {
		return Collections.unmodifiableMap(this.supplies);
	}

	/** This run's holder id in the store. */
	public String holder() {
		return this.holder;
	}

	/**
	 * Look at every lease once and send the exchanges due. Never throws.
	 * @return completed when every exchange sent has been answered or has failed
	 */
	public CompletableFuture<Void> look() {
		List<CompletableFuture<?>> sent = new ArrayList<>();
		for (LeasedSupply supply : this.supplies.values()) {
			Exchange exchange;
			try {
				exchange = supply.look();
			}
			catch (RuntimeException ex) {
				logger.warn("llm-resilience: the lease of {} was not looked at", supply.scope(), ex);
				continue;
			}
			if (exchange != null) {
				sent.add(send(supply, exchange));
			}
		}
		return CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new));
	}

	private CompletableFuture<?> send(LeasedSupply supply, Exchange exchange) {
		CompletableFuture<LeaseStore.Lease> answer;
		try {
			answer = this.store.exchange(exchange);
		}
		catch (RuntimeException ex) {
			answer = CompletableFuture.failedFuture(ex);
		}
		return answer.handle((lease, ex) -> {
			if (lease != null) {
				supply.answered(lease);
			}
			else {
				logger.debug("llm-resilience: lease exchange of {} failed: {}", exchange.scope(), String.valueOf(ex));
				supply.failed(exchange.sequence());
			}
			return null;
		});
	}

	/**
	 * Look every tick on the scheduler (a tenth of the period, between 10 ms and 100 ms),
	 * and at once when a call finds its lease short.
	 */
	public void start(Scheduler scheduler) {
		this.scheduler = scheduler;
		tick(scheduler, LeasedSupply.tickNanos(this.settings));
	}

	/**
	 * The next tick, scheduled when this one has looked: the engine's timer schedules
	 * delays, not periods.
	 */
	private void tick(Scheduler scheduler, long tickNanos) {
		if (this.stopped) {
			return;
		}
		try {
			this.ticks = scheduler.schedule(() -> {
				lookQuietly();
				tick(scheduler, tickNanos);
			}, tickNanos, TimeUnit.NANOSECONDS);
		}
		catch (RuntimeException ex) {
			// A scheduler that was disposed: nothing to look at any more.
		}
	}

	private void nudge() {
		Scheduler scheduler = this.scheduler;
		if (scheduler != null && this.nudged.compareAndSet(false, true)) {
			try {
				scheduler.schedule(() -> {
					this.nudged.set(false);
					lookQuietly();
				});
			}
			catch (RuntimeException ex) {
				// A scheduler that was disposed: the ticks have stopped too.
				this.nudged.set(false);
			}
		}
	}

	private void lookQuietly() {
		try {
			look();
		}
		catch (RuntimeException ex) {
			logger.warn("llm-resilience: leases not looked at", ex);
		}
	}

	/**
	 * Stop looking, and give back what every lease holds (one exchange each, not waited
	 * for: a lease not given back ends at its period all the same).
	 * @return completed when every lease given back has been answered or has failed
	 */
	public CompletableFuture<Void> release() {
		close();
		List<CompletableFuture<?>> sent = new ArrayList<>();
		for (LeasedSupply supply : this.supplies.values()) {
			Exchange exchange = supply.release();
			if (exchange != null) {
				sent.add(send(supply, exchange));
			}
		}
		return CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new));
	}

	/** Stop looking; leases end at their periods ({@link #release()} gives them back). */
	@Override
	public void close() {
		this.stopped = true;
		Disposable ticks = this.ticks;
		if (ticks != null) {
			ticks.dispose();
		}
		this.scheduler = null;
	}

}
