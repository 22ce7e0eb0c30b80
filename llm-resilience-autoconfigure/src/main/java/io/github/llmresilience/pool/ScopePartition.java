package io.github.llmresilience.pool;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

/**
 * One quota scope's capacity, shared by the pools without wasting any of it: every call
 * draws on one {@link ScopeSupply} (the scope's capacity on this pod), and when calls
 * wait, each pool's share decides who draws next.
 *
 * <p>
 * The order is weighted fair queuing (start-time fair queuing, as in hierarchical token
 * buckets and Linux's fair schedulers): each call of a pool gets a virtual tag,
 * {@code max(V, the pool's last tag) + 1 / share}, where {@code V} is the tag of the call
 * the scope served last. Calls draw in the order of their tags: within a pool in arrival
 * order, across pools by share, so that a pool under its share goes ahead of one over it.
 * A pool that was idle starts again at {@code V}: it gets no credit for the time it did
 * not use, and so it cannot take a burst that starves the others. A call may draw now
 * when the supply holds one call's worth more than the calls ahead of it in that order
 * need: nothing the provider allows is kept back for a pool that does not ask for it, and
 * when the supply is short the next refill goes to the first tag.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public final class ScopePartition {

	/**
	 * Weight of the newest answer in the estimate of tokens per call (exponentially
	 * weighted mean).
	 */
	private static final double ESTIMATE_WEIGHT = 0.2;

	private final String key;

	private final List<PoolSettings> pools;

	private final SupplySource supplies;

	private final @Nullable Capacity configured;

	private volatile Capacity capacity;

	/** The pods sharing the capacity. */
	private volatile int pods;

	/** The scope's capacity on this pod; {@code null} until the capacity is known. */
	private volatile @Nullable ScopeSupply supply;

	/**
	 * How many calls of each pool wait here: counted whether or not the capacity is
	 * known, so that calls that began to wait before it was stay counted (and leave) on
	 * the same count.
	 */
	private final Map<String, AtomicInteger> waiting = new LinkedHashMap<>();

	/** The calls waiting for room here, in the order they draw: by tag, then ticket. */
	private final ConcurrentSkipListMap<Tag, String> line = new ConcurrentSkipListMap<>();

	/** The tag of each waiting call's ticket. */
	private final Map<Long, Tag> tags = new ConcurrentHashMap<>();

	private final AtomicLong tickets = new AtomicLong();

	/** Guarded by {@code this}: the tag of the call served last. */
	private double virtualTime;

	/** Guarded by {@code this}: each pool's last tag, by pool. */
	private final Map<String, double[]> lastTags = new ConcurrentHashMap<>();

	/** Tokens per answer, mean; zero until an answer said. */
	private final AtomicLong tokensPerCall = new AtomicLong();

	ScopePartition(String key, List<PoolSettings> pools, SupplySource supplies, @Nullable Capacity configured,
			int pods) {
		this.key = key;
		this.pools = pools;
		this.supplies = supplies;
		this.configured = configured;
		this.pods = Math.max(1, pods);
		for (PoolSettings pool : pools) {
			this.waiting.put(pool.name(), new AtomicInteger());
			this.lastTags.put(pool.name(), new double[1]);
		}
		this.capacity = (configured != null) ? configured : Capacity.UNKNOWN;
		if (this.capacity.isKnown()) {
			this.supply = supplies.supply(key, this.capacity, this.pods);
		}
	}

	/**
	 * The fleet counts a new number of pods: the supply holds this pod's new part, what
	 * it holds kept in proportion.
	 */
	synchronized void fleetSize(int pods) {
		if (pods < 1 || pods == this.pods) {
			return;
		}
		this.pods = pods;
		ScopeSupply supply = this.supply;
		if (supply != null) {
			supply.resize(this.capacity, pods);
		}
	}

	/** The pods sharing the capacity: 1 outside fleet mode. */
	int pods() {
		return this.pods;
	}

	public String key() {
		return this.key;
	}

	/** The capacity partitioned now. */
	public Capacity capacity() {
		return this.capacity;
	}

	/**
	 * Learn the scope's capacity from an answer's headers; a configured dimension is
	 * kept.
	 * @return whether the partition changed
	 */
	synchronized boolean learn(Capacity learned) {
		return learn(learned, Capacity.UNKNOWN);
	}

	/**
	 * Learn the scope's capacity, and (when the supply is new) what the provider says is
	 * left of it now: the supply starts with this pod's part of what is left, so that the
	 * calls sent before the capacity was known are not spent twice.
	 * @param remaining requests and tokens left now, zero where not stated
	 * @return whether the partition changed
	 */
	synchronized boolean learn(Capacity learned, Capacity remaining) {
		Capacity next = (this.configured != null) ? this.configured.or(learned) : learned.or(this.capacity);
		if (next.equals(this.capacity) || !next.isKnown()) {
			return false;
		}
		boolean sameDimensions = (next.requestsPerMinute() > 0) == (this.capacity.requestsPerMinute() > 0)
				&& (next.tokensPerMinute() > 0) == (this.capacity.tokensPerMinute() > 0);
		ScopeSupply supply = this.supply;
		if (supply == null || !sameDimensions) {
			// A dimension became known: a new supply, holding this pod's part of what is
			// left.
			ScopeSupply fresh = this.supplies.supply(this.key, next, this.pods);
			Capacity part = Capacity.partOf(next, this.pods);
			fresh.takeAnyway(spent(part.requestsPerMinute(), next.requestsPerMinute(), remaining.requestsPerMinute()),
					spent(part.tokensPerMinute(), next.tokensPerMinute(), remaining.tokensPerMinute()));
			this.supply = fresh;
		}
		else {
			supply.resize(next, this.pods);
		}
		this.capacity = next;
		return true;
	}

	/**
	 * What of a part is already spent when the provider says {@code left} of
	 * {@code limit} is left (nothing when it states nothing).
	 */
	private static long spent(long part, long limit, long left) {
		if (limit <= 0 || left <= 0 || left >= limit) {
			return 0;
		}
		// part × left overflows a long for capacities of billions.
		long keep = (part <= Long.MAX_VALUE / left) ? part * left / limit : (long) ((double) part / limit * left);
		return Math.max(0, part - keep);
	}

	/**
	 * A pool's part of a capacity: its share, at least one; zero in a dimension not
	 * known.
	 */
	static long part(long perMinute, PoolSettings pool) {
		return (perMinute > 0) ? Math.max(1, perMinute * pool.share() / 100) : 0;
	}

	/**
	 * A call of the pool starts waiting for room in this scope: it takes its tag in the
	 * line.
	 * @return its ticket (never 0)
	 */
	long enter(PoolSettings pool) {
		Tag tag;
		synchronized (this) {
			tag = new Tag(nextTag(pool), this.tickets.incrementAndGet());
			this.lastTags.get(pool.name())[0] = tag.value;
		}
		this.tags.put(tag.ticket, tag);
		this.line.put(tag, pool.name());
		return tag.ticket;
	}

	/** Guarded by {@code this}: the tag the pool's next call gets. */
	private double nextTag(PoolSettings pool) {
		return Math.max(this.virtualTime, this.lastTags.get(pool.name())[0]) + 1.0 / pool.share();
	}

	/** The call with this ticket waits no more (served, or gone). */
	void leave(PoolSettings pool, long ticket) {
		Tag tag = this.tags.remove(ticket);
		if (tag != null) {
			this.line.remove(tag);
		}
	}

	/**
	 * How many waiting calls draw before this ticket; for a call that does not wait
	 * ({@code 0}), before a call of the pool that came now.
	 */
	int ahead(PoolSettings pool, long ticket) {
		if (this.line.isEmpty()) {
			return 0;
		}
		Tag tag = (ticket != 0) ? this.tags.get(ticket) : null;
		if (tag == null) {
			double next;
			synchronized (this) {
				next = nextTag(pool);
			}
			tag = new Tag(next, Long.MAX_VALUE);
		}
		return this.line.headMap(tag).size();
	}

	/**
	 * Draw for a call of the pool now.
	 * @param ticket the call's place in the line, or {@code 0} when it does not wait
	 * @return the grant, or {@code null} when the supply does not hold one more call than
	 * the calls that draw before it need
	 */
	@Nullable Grant tryTake(PoolSettings pool, long ticket) {
		ScopeSupply supply = this.supply;
		if (supply == null) {
			return Grant.FREE;
		}
		long tokens = tokenDraw();
		int ahead = ahead(pool, ticket);
		if (ahead > 0 && supply.nanosUntil(ahead + 1, (ahead + 1) * tokens) > 0) {
			return null;
		}
		if (!supply.tryTake(1, tokens)) {
			return null;
		}
		served(pool, ticket);
		return new Grant(supply, tokens, pool.name());
	}

	/** A call was served: it leaves the line, and {@code V} moves to its tag. */
	private void served(PoolSettings pool, long ticket) {
		Tag tag = (ticket != 0) ? this.tags.remove(ticket) : null;
		if (tag != null) {
			this.line.remove(tag);
		}
		synchronized (this) {
			double value;
			if (tag != null) {
				value = tag.value;
			}
			else {
				value = nextTag(pool);
				this.lastTags.get(pool.name())[0] = value;
			}
			this.virtualTime = Math.max(this.virtualTime, value);
		}
	}

	/**
	 * How long until a call of the pool may draw: until the supply holds what the calls
	 * ahead of it need, and one call more; zero when now.
	 * @param ticket the call's place in the line, or {@code 0}
	 */
	long waitNanos(PoolSettings pool, long ticket) {
		ScopeSupply supply = this.supply;
		if (supply == null) {
			return 0;
		}
		long calls = ahead(pool, ticket) + 1L;
		long nanos = supply.nanosUntil(calls, calls * tokenDraw());
		if (nanos > 0) {
			supply.pressing(calls, pool.maxWait().toNanos());
		}
		return nanos;
	}

	/**
	 * A call of the pool waits (or stops waiting) on this scope: counted whether or not
	 * the capacity is known yet.
	 */
	void waiting(PoolSettings pool, int delta) {
		AtomicInteger count = this.waiting.get(pool.name());
		if (count != null) {
			count.addAndGet(delta);
		}
	}

	/**
	 * The tokens a call is expected to use: the weighted mean of the answers so far, cut
	 * to the supply's minute, so that one estimate never asks more than it can hold.
	 */
	long estimate() {
		return this.tokensPerCall.get();
	}

	private long tokenDraw() {
		long perMinute = Capacity.partOf(this.capacity, this.pods).tokensPerMinute();
		return (perMinute > 0) ? Math.min(estimate(), perMinute) : 0;
	}

	/** An answer used this many tokens: move the estimate. */
	void used(long tokens) {
		if (tokens <= 0) {
			return;
		}
		this.tokensPerCall.getAndUpdate(
				(mean) -> (mean == 0) ? tokens : Math.round(mean * (1 - ESTIMATE_WEIGHT) + tokens * ESTIMATE_WEIGHT));
	}

	/** The scope as it is now: what this pod may send, each pool's share and waiting. */
	PoolState.ScopePools state() {
		ScopeSupply supply = this.supply;
		Capacity part = Capacity.partOf(this.capacity, this.pods);
		Map<String, PoolState.PoolShare> pools = new LinkedHashMap<>();
		for (PoolSettings pool : this.pools) {
			pools.put(pool.name(), new PoolState.PoolShare(part(part.requestsPerMinute(), pool),
					part(part.tokensPerMinute(), pool), this.waiting.get(pool.name()).get()));
		}
		return new PoolState.ScopePools(this.capacity, this.pods,
				(supply != null && part.requestsPerMinute() > 0) ? supply.requests() : -1,
				(supply != null && part.tokensPerMinute() > 0) ? supply.tokens() : -1,
				Collections.unmodifiableMap(pools));
	}

	/** A waiting call's place: its virtual tag, then its ticket (arrival order). */
	private record Tag(double value, long ticket) implements Comparable<Tag> {

		@Override
		public int compareTo(Tag other) {
			int byValue = Double.compare(this.value, other.value);
			return (byValue != 0) ? byValue : Long.compare(this.ticket, other.ticket);
		}

	}

}
