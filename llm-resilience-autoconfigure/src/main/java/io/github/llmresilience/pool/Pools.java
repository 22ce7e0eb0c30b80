package io.github.llmresilience.pool;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.change.StateChanges;
import io.github.llmresilience.pool.internal.CapacityHeaders;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pools of one engine: their settings, how many calls of each wait now, and (when
 * partitioning is on) each quota scope's partition.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public final class Pools {

	private static final Logger logger = LoggerFactory.getLogger(Pools.class);

	private final PartitionSettings settings;

	private final Map<String, PoolSettings> byName;

	private final Map<String, AtomicInteger> queued;

	private final Map<String, ScopePartition> scopes = new ConcurrentHashMap<>();

	private final SupplySource supplies;

	private final StateChanges events;

	private final ReleasePace pace = new ReleasePace();

	/** The pods sharing each scope's capacity: 1 outside fleet mode. */
	private volatile int pods = 1;

	/** The scopes an answer stated more tokens used than a minute of: each told once. */
	private final Set<String> beyondMinute = ConcurrentHashMap.newKeySet();

	/** The scopes whose headers stated a capacity below the floor: each told once. */
	private final Set<String> belowFloor = ConcurrentHashMap.newKeySet();

	public Pools(PartitionSettings settings, SupplySource supplies, StateChanges events) {
		this.settings = settings;
		this.supplies = supplies;
		this.events = events;
		Map<String, PoolSettings> byName = new LinkedHashMap<>();
		Map<String, AtomicInteger> queued = new LinkedHashMap<>();
		for (PoolSettings pool : settings.pools()) {
			byName.put(pool.name(), pool);
			queued.put(pool.name(), new AtomicInteger());
		}
		this.byName = Collections.unmodifiableMap(byName);
		this.queued = Collections.unmodifiableMap(queued);
	}

	public PartitionSettings settings() {
		return this.settings;
	}

	/**
	 * The pool a call names.
	 * @throws IllegalArgumentException when no pool has that name (the caller's mistake)
	 */
	public PoolSettings pool(String name) {
		PoolSettings pool = this.byName.get(name);
		if (pool == null) {
			throw new IllegalArgumentException("No pool named '" + name + "'; pools: " + this.byName.keySet());
		}
		return pool;
	}

	/**
	 * The partition of a quota scope, made on first use; {@code null} when partitioning
	 * is off. Hold on to it.
	 */
	public @Nullable ScopePartition scope(String key) {
		if (!this.settings.enabled()) {
			return null;
		}
		return this.scopes.computeIfAbsent(key, (scope) -> new ScopePartition(scope, this.settings.pools(),
				this.supplies, this.settings.capacities().get(scope), this.pods));
	}

	/**
	 * The fleet counts this many pods alive: each takes an equal part of every scope's
	 * capacity, its pools' shares of that part. Calls of one pod never wait on another.
	 * @param pods one or more
	 */
	public void fleetSize(int pods) {
		if (pods < 1 || pods == this.pods) {
			return;
		}
		int before = this.pods;
		this.pods = pods;
		if (!this.settings.enabled()) {
			return;
		}
		this.scopes.values().forEach((scope) -> scope.fleetSize(pods));
		this.events.publish(StateChange.Kind.POOL_CAPACITY_CHANGED, "pools",
				"the fleet's " + pods + " pods share every quota scope's capacity (were " + before + ")", null);
	}

	// Drawing

	/**
	 * Draw for a call now; {@code null} when the scope's supply does not hold one call
	 * more than the calls that draw before it (in the scope's fair order) need.
	 * @param ticket the call's place in the line ({@link #enter}), or {@code 0}
	 */
	public @Nullable Grant tryTake(ScopePartition scope, PoolSettings pool, long ticket) {
		return scope.tryTake(pool, ticket);
	}

	/**
	 * A call starts waiting for room in the scope: its place in the scope's line, in
	 * arrival order within its pool and by share across pools.
	 */
	public long enter(ScopePartition scope, PoolSettings pool) {
		return scope.enter(pool);
	}

	/** The call waits no more for room in the scope. */
	public void leave(ScopePartition scope, PoolSettings pool, long ticket) {
		scope.leave(pool, ticket);
	}

	/** How many waiting calls draw on the scope before the ticket. */
	public int ahead(ScopePartition scope, PoolSettings pool, long ticket) {
		return scope.ahead(pool, ticket);
	}

	/**
	 * How long until a call of the pool may draw on the scope; zero when now.
	 * @param ticket the call's place in the line, or {@code 0}
	 */
	public long waitNanos(ScopePartition scope, PoolSettings pool, long ticket) {
		return scope.waitNanos(pool, ticket);
	}

	/**
	 * An answer came: correct the grant by the tokens it used, and learn the scope's
	 * capacity from its headers (a change is a state change).
	 * @param tokensUsed the answer's input and output tokens, or a negative number when
	 * not known
	 * @param header the answer's headers by name, or {@code null} without any
	 */
	public void answered(ScopePartition scope, Grant grant, long tokensUsed,
			@Nullable Function<String, @Nullable String> header) {
		long perMinute = scope.capacity().tokensPerMinute();
		if (perMinute > 0 && tokensUsed > perMinute) {
			// No provider serves more in one answer than its limit allows in a minute: a
			// usage figure beyond it is garbage, counted as a minute.
			if (this.beyondMinute.add(scope.key())) {
				logger.warn("llm-resilience {}: an answer stated {} tokens used, more than the scope's {} a minute;"
						+ " counted as {}", scope.key(), tokensUsed, perMinute, perMinute);
			}
			tokensUsed = perMinute;
		}
		grant.settle(tokensUsed);
		scope.used(tokensUsed);
		if (header == null || !this.settings.learn()) {
			return;
		}
		Capacity stated = CapacityHeaders.read(header);
		if (stated != null) {
			Capacity believed = this.settings.believable(stated);
			if (!believed.equals(stated) && this.belowFloor.add(scope.key())) {
				logger.warn("llm-resilience {}: the provider's headers state {}, below the floor of a learned capacity"
						+ " ({}, pools.learned-capacity-floor): not partitioned by it; configure the scope's"
						+ " capacity to use it", scope.key(), stated, this.settings.learnedCapacityFloor());
			}
			stated = believed;
			Capacity before = scope.capacity();
			if (scope.learn(stated, CapacityHeaders.remaining(header))) {
				this.events.publish(StateChange.Kind.POOL_CAPACITY_CHANGED, scope.key(),
						(before.isKnown() ? "capacity changed from " + before + " to " : "capacity learned: ")
								+ scope.capacity() + " (from the provider's rate-limit headers)",
						null);
			}
		}
	}

	/** How calls that waited for a gate go back to its scope. */
	public ReleasePace pace() {
		return this.pace;
	}

	// Queue

	/**
	 * Take a place in the pool's queue of waiting calls.
	 * @return how many of the pool's calls wait ahead of this one, or -1 when the queue
	 * is full ({@code max-queued})
	 */
	public int enqueue(PoolSettings pool, @Nullable ScopePartition scope) {
		AtomicInteger count = this.queued.get(pool.name());
		while (true) {
			int now = count.get();
			if (now >= pool.maxQueued()) {
				return -1;
			}
			if (count.compareAndSet(now, now + 1)) {
				if (scope != null) {
					scope.waiting(pool, 1);
				}
				return now;
			}
		}
	}

	/** Leave the queue (the wait ended, or the call was cancelled meanwhile). */
	public void dequeue(PoolSettings pool, @Nullable ScopePartition scope) {
		this.queued.get(pool.name()).decrementAndGet();
		if (scope != null) {
			scope.waiting(pool, -1);
		}
	}

	/** Calls of the pool waiting now. */
	public int queued(String pool) {
		AtomicInteger count = this.queued.get(pool);
		return (count != null) ? count.get() : 0;
	}

	// State

	public PoolState state() {
		Map<String, Integer> queued = new LinkedHashMap<>();
		this.queued.forEach((name, count) -> queued.put(name, count.get()));
		Map<String, PoolState.ScopePools> scopes = new TreeMap<>();
		this.scopes.forEach((key, scope) -> {
			if (scope.capacity().isKnown()) {
				scopes.put(key, scope.state());
			}
		});
		return new PoolState(this.settings.enabled(), Collections.unmodifiableMap(queued),
				Collections.unmodifiableMap(scopes));
	}

}
