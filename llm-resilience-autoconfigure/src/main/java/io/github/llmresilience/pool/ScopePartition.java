package io.github.llmresilience.pool;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.TokensInheritanceStrategy;
import org.jspecify.annotations.Nullable;

/**
 * One quota scope's capacity, partitioned between the pools: each pool has a Bucket4j
 * bucket of requests (and one of tokens when the scope's token capacity is known) holding
 * its share of a minute's capacity and refilling it greedily over the minute. The buckets
 * together never hold more than the scope's capacity.
 *
 * <p>
 * A call draws one request (and the estimated tokens) from its own pool's buckets. When
 * they are empty it borrows from another pool that leaves capacity idle: one with no call
 * of its own waiting, and only what that pool holds above half its bucket, so a pool that
 * is used is never emptied by others. When nothing can be drawn or borrowed, the call
 * reserves a place in its own pool's buckets: Bucket4j puts the bucket into debt and says
 * when the debt is paid, which is when the call may send; reservations are paid in the
 * order they were made.
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

	private final BucketSource buckets;

	private final @Nullable Capacity configured;

	private volatile Capacity capacity;

	/** The pods sharing the capacity: each partitions its equal part. */
	private volatile int pods;

	private volatile Map<String, Share> shares = Map.of();

	/**
	 * How many calls of each pool wait here: kept apart from the shares, so that calls
	 * that began to wait before the capacity was known, or before it changed, stay
	 * counted (and leave) on the same count.
	 */
	private final Map<String, AtomicInteger> waiting = new LinkedHashMap<>();

	/** The calls of each pool waiting for room here, by ticket: arrival order. */
	private final Map<String, ConcurrentSkipListSet<Long>> lines = new ConcurrentHashMap<>();

	private final AtomicLong tickets = new AtomicLong();

	/** Tokens per answer, mean; zero until an answer said. */
	private final AtomicLong tokensPerCall = new AtomicLong();

	ScopePartition(String key, List<PoolSettings> pools, BucketSource buckets, @Nullable Capacity configured) {
		this(key, pools, buckets, configured, 1);
	}

	ScopePartition(String key, List<PoolSettings> pools, BucketSource buckets, @Nullable Capacity configured,
			int pods) {
		this.key = key;
		this.pools = pools;
		this.buckets = buckets;
		this.configured = configured;
		this.pods = Math.max(1, pods);
		for (PoolSettings pool : pools) {
			this.waiting.put(pool.name(), new AtomicInteger());
		}
		this.capacity = (configured != null) ? configured : Capacity.UNKNOWN;
		if (this.capacity.isKnown()) {
			this.shares = shares(ownPart(this.capacity));
		}
	}

	/**
	 * This pod's part of a capacity the fleet shares: an equal part, rounded down (the
	 * fleet together never exceeds it), at least one in each known dimension.
	 */
	private Capacity ownPart(Capacity capacity) {
		int pods = this.pods;
		if (pods == 1) {
			return capacity;
		}
		return new Capacity(perPod(capacity.requestsPerMinute(), pods), perPod(capacity.tokensPerMinute(), pods));
	}

	private static long perPod(long perMinute, int pods) {
		return (perMinute > 0) ? Math.max(1, perMinute / pods) : 0;
	}

	/**
	 * The fleet counts a new number of pods: resize each pool's buckets to its share of
	 * this pod's new part, what they hold kept in proportion.
	 */
	synchronized void fleetSize(int pods) {
		if (pods < 1 || pods == this.pods) {
			return;
		}
		this.pods = pods;
		Map<String, Share> current = this.shares;
		if (current.isEmpty()) {
			return;
		}
		Capacity part = ownPart(this.capacity);
		Map<String, Share> updated = new LinkedHashMap<>();
		for (PoolSettings pool : this.pools) {
			updated.put(pool.name(), current.get(pool.name()).resize(pool, part));
		}
		this.shares = updated;
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
	 * Learn the scope's capacity, and (when the partition is new) what the provider says
	 * is left of it now: each pool's buckets start with their share of what is left, so
	 * that the calls sent before the capacity was known are not spent twice.
	 * @param remaining requests and tokens left now, zero where not stated
	 * @return whether the partition changed
	 */
	synchronized boolean learn(Capacity learned, Capacity remaining) {
		Capacity next = (this.configured != null) ? this.configured.or(learned) : learned.or(this.capacity);
		if (next.equals(this.capacity) || !next.isKnown()) {
			return false;
		}
		Map<String, Share> current = this.shares;
		boolean sameDimensions = (next.requestsPerMinute() > 0) == (this.capacity.requestsPerMinute() > 0)
				&& (next.tokensPerMinute() > 0) == (this.capacity.tokensPerMinute() > 0);
		Capacity part = ownPart(next);
		if (current.isEmpty() || !sameDimensions) {
			// A dimension became known: new buckets, holding their share of what is
			// left (the fleet's remaining, in proportion to the whole).
			this.shares = shares(part);
			this.shares.values().forEach((share) -> share.startWith(next, remaining));
		}
		else {
			Map<String, Share> updated = new LinkedHashMap<>();
			for (PoolSettings pool : this.pools) {
				updated.put(pool.name(), current.get(pool.name()).resize(pool, part));
			}
			this.shares = updated;
		}
		this.capacity = next;
		return true;
	}

	private Map<String, Share> shares(Capacity capacity) {
		Map<String, Share> shares = new LinkedHashMap<>();
		for (PoolSettings pool : this.pools) {
			Bucket requests = (capacity.requestsPerMinute() > 0) ? this.buckets
				.bucket(this.key + "/" + pool.name() + "/requests", perMinute(part(capacity.requestsPerMinute(), pool)))
					: null;
			Bucket tokens = (capacity.tokensPerMinute() > 0) ? this.buckets.bucket(
					this.key + "/" + pool.name() + "/tokens", perMinute(part(capacity.tokensPerMinute(), pool))) : null;
			shares.put(pool.name(), new Share(pool, requests, tokens, part(capacity.requestsPerMinute(), pool),
					part(capacity.tokensPerMinute(), pool), this.waiting.get(pool.name())));
		}
		return shares;
	}

	/**
	 * A pool's part of a capacity: its share, at least one; zero in a dimension not
	 * known.
	 */
	static long part(long perMinute, PoolSettings pool) {
		return (perMinute > 0) ? Math.max(1, perMinute * pool.share() / 100) : 0;
	}

	static BucketConfiguration perMinute(long capacity) {
		return BucketConfiguration.builder()
			.addLimit(Bandwidth.builder().capacity(capacity).refillGreedy(capacity, Duration.ofMinutes(1)).build())
			.build();
	}

	/**
	 * A call of the pool starts waiting for room in this scope.
	 * @return its place in the pool's line (a ticket, never 0)
	 */
	long enter(PoolSettings pool) {
		long ticket = this.tickets.incrementAndGet();
		line(pool).add(ticket);
		return ticket;
	}

	/** The call with this ticket waits no more (served, or gone). */
	void leave(PoolSettings pool, long ticket) {
		line(pool).remove(ticket);
	}

	/**
	 * How many calls of the pool wait ahead of this ticket; for a call that does not wait
	 * ({@code 0}), how many wait at all.
	 */
	int ahead(PoolSettings pool, long ticket) {
		ConcurrentSkipListSet<Long> line = line(pool);
		if (line.isEmpty()) {
			return 0;
		}
		return (ticket == 0) ? line.size() : line.headSet(ticket).size();
	}

	private ConcurrentSkipListSet<Long> line(PoolSettings pool) {
		return this.lines.computeIfAbsent(pool.name(), (name) -> new ConcurrentSkipListSet<>());
	}

	/**
	 * Draw for a call of the pool now: from its own buckets, else borrowed.
	 * @param ticket the call's place in the pool's line, or {@code 0} when it does not
	 * wait; while calls that came earlier wait, nothing is drawn
	 * @return the grant, or {@code null} when neither its own share nor an idle pool has
	 * room (or earlier calls wait)
	 */
	@Nullable Grant tryTake(PoolSettings pool, long ticket) {
		Map<String, Share> shares = this.shares;
		if (shares.isEmpty()) {
			return Grant.FREE;
		}
		long estimate = estimate();
		Share own = shares.get(pool.name());
		if (own == null) {
			return Grant.FREE;
		}
		if (ahead(pool, ticket) > 0) {
			// Calls of the pool that came earlier wait: room goes to them first.
			return null;
		}
		Grant grant = own.tryTake(estimate, false);
		if (grant != null) {
			return grant;
		}
		for (Share lender : shares.values()) {
			if (lender != own && lender.waiting.get() == 0) {
				grant = lender.tryTake(estimate, true);
				if (grant != null) {
					return grant;
				}
			}
		}
		return null;
	}

	/**
	 * Reserve a place in the pool's own buckets.
	 * @param maxWaitNanos the longest the call may wait
	 * @return the grant, whose {@link Grant#waitNanos()} says when the call may send; or
	 * {@code null} when that is later than {@code maxWaitNanos} (nothing is drawn)
	 */
	@Nullable Grant reserve(PoolSettings pool, long maxWaitNanos) {
		Map<String, Share> shares = this.shares;
		Share own = shares.get(pool.name());
		if (own == null) {
			return Grant.FREE;
		}
		return own.reserve(estimate(), maxWaitNanos);
	}

	/**
	 * How long until the pool's own buckets have room for one more call; zero when now.
	 */
	long waitNanos(PoolSettings pool) {
		Share own = this.shares.get(pool.name());
		return (own != null) ? Math.min(own.waitNanos(estimate()), lendNanos(pool)) : 0;
	}

	/**
	 * How long until another pool with no call of its own waiting holds more than half
	 * its buckets, and so lends; {@link Long#MAX_VALUE} when none will.
	 */
	long lendNanos(PoolSettings pool) {
		long estimate = estimate();
		long earliest = Long.MAX_VALUE;
		for (Share lender : this.shares.values()) {
			if (!lender.pool.name().equals(pool.name()) && lender.waiting.get() == 0) {
				earliest = Math.min(earliest, lender.lendNanos(estimate));
			}
		}
		return earliest;
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
	 * The tokens a call is expected to use: the weighted mean of the answers so far (each
	 * draw is cut to the pool's bucket, so that one estimate never asks more than a
	 * bucket can hold).
	 */
	long estimate() {
		return this.tokensPerCall.get();
	}

	/** An answer used this many tokens: move the estimate. */
	void used(long tokens) {
		if (tokens <= 0) {
			return;
		}
		this.tokensPerCall.getAndUpdate(
				(mean) -> (mean == 0) ? tokens : Math.round(mean * (1 - ESTIMATE_WEIGHT) + tokens * ESTIMATE_WEIGHT));
	}

	/** What each pool holds and how many of its calls wait, by pool. */
	Map<String, long[]> usage() {
		Map<String, long[]> usage = new LinkedHashMap<>();
		this.shares.forEach((name, share) -> usage.put(name,
				new long[] { share.requestsPerMinute,
						(share.requests != null) ? share.requests.getAvailableTokens() : -1, share.tokensPerMinute,
						(share.tokens != null) ? share.tokens.getAvailableTokens() : -1, share.waiting.get() }));
		return usage;
	}

	/** One pool's part of the scope. */
	private static final class Share {

		final PoolSettings pool;

		final @Nullable Bucket requests;

		final @Nullable Bucket tokens;

		final long requestsPerMinute;

		final long tokensPerMinute;

		final AtomicInteger waiting;

		Share(PoolSettings pool, @Nullable Bucket requests, @Nullable Bucket tokens, long requestsPerMinute,
				long tokensPerMinute, AtomicInteger waiting) {
			this.pool = pool;
			this.requests = requests;
			this.tokens = tokens;
			this.requestsPerMinute = requestsPerMinute;
			this.tokensPerMinute = tokensPerMinute;
			this.waiting = waiting;
		}

		/**
		 * Draw one request and the estimate when the buckets have them; for another pool
		 * ({@code lending}), only from what they hold above half their size, which this
		 * pool keeps for its own calls.
		 */
		@Nullable Grant tryTake(long estimate, boolean lending) {
			long floor = lending ? this.requestsPerMinute / 2 : 0;
			long tokensFloor = lending ? this.tokensPerMinute / 2 : 0;
			long tokenDraw = Math.min(estimate, this.tokensPerMinute);
			if (this.requests != null && this.requests.getAvailableTokens() - 1 < floor) {
				return null;
			}
			if (this.tokens != null && this.tokens.getAvailableTokens() - tokenDraw < tokensFloor) {
				return null;
			}
			if (this.tokens != null && tokenDraw > 0 && !this.tokens.tryConsume(tokenDraw)) {
				return null;
			}
			if (this.requests != null && !this.requests.tryConsume(1)) {
				if (this.tokens != null && tokenDraw > 0) {
					this.tokens.addTokens(tokenDraw);
				}
				return null;
			}
			return new Grant(this.requests, this.tokens, (this.tokens != null) ? tokenDraw : 0, 0, this.pool.name());
		}

		@Nullable Grant reserve(long estimate, long maxWaitNanos) {
			long tokenDraw = Math.min(estimate, this.tokensPerMinute);
			long wait = 0;
			if (this.requests != null) {
				wait = this.requests.consumeIgnoringRateLimits(1);
			}
			if (this.tokens != null && tokenDraw > 0) {
				wait = Math.max(wait, this.tokens.consumeIgnoringRateLimits(tokenDraw));
			}
			Grant grant = new Grant(this.requests, this.tokens, (this.tokens != null) ? tokenDraw : 0, wait,
					this.pool.name());
			if (wait > maxWaitNanos) {
				grant.cancel();
				return null;
			}
			return grant;
		}

		long waitNanos(long estimate) {
			long wait = 0;
			if (this.requests != null) {
				wait = nanos(this.requests, 1);
			}
			long tokenDraw = Math.min(estimate, this.tokensPerMinute);
			if (this.tokens != null) {
				wait = Math.max(wait, nanos(this.tokens, Math.max(1, tokenDraw)));
			}
			return wait;
		}

		/** How long until this pool holds the draw above half its buckets. */
		long lendNanos(long estimate) {
			long wait = 0;
			if (this.requests != null) {
				long need = this.requestsPerMinute / 2 + 1;
				if (need > this.requestsPerMinute) {
					return Long.MAX_VALUE;
				}
				wait = nanos(this.requests, need);
			}
			long tokenDraw = Math.min(estimate, this.tokensPerMinute);
			if (this.tokens != null) {
				long need = this.tokensPerMinute / 2 + Math.max(1, tokenDraw);
				if (need > this.tokensPerMinute) {
					return Long.MAX_VALUE;
				}
				wait = Math.max(wait, nanos(this.tokens, need));
			}
			return wait;
		}

		private static long nanos(Bucket bucket, long tokens) {
			return bucket.estimateAbilityToConsume(tokens).getNanosToWaitForRefill();
		}

		/**
		 * Start with this pool's share of what the provider says is left (a dimension it
		 * states nothing about stays full).
		 */
		void startWith(Capacity capacity, Capacity remaining) {
			drawTo(this.requests, this.requestsPerMinute, capacity.requestsPerMinute(), remaining.requestsPerMinute());
			drawTo(this.tokens, this.tokensPerMinute, capacity.tokensPerMinute(), remaining.tokensPerMinute());
		}

		private static void drawTo(@Nullable Bucket bucket, long part, long limit, long left) {
			if (bucket != null && limit > 0 && left > 0 && left < limit) {
				// part × left overflows a long for capacities of billions.
				long keep = (part <= Long.MAX_VALUE / left) ? part * left / limit
						: (long) ((double) part / limit * left);
				bucket.tryConsumeAsMuchAsPossible(Math.max(0, part - keep));
			}
		}

		/**
		 * The same pool on a new capacity; what the buckets hold is kept in proportion.
		 */
		Share resize(PoolSettings pool, Capacity capacity) {
			long requestsPerMinute = part(capacity.requestsPerMinute(), pool);
			long tokensPerMinute = part(capacity.tokensPerMinute(), pool);
			Bucket requests = this.requests;
			if (capacity.requestsPerMinute() > 0 && requests != null) {
				requests.replaceConfiguration(perMinute(requestsPerMinute), TokensInheritanceStrategy.PROPORTIONALLY);
			}
			Bucket tokens = this.tokens;
			if (capacity.tokensPerMinute() > 0 && tokens != null) {
				tokens.replaceConfiguration(perMinute(tokensPerMinute), TokensInheritanceStrategy.PROPORTIONALLY);
			}
			return new Share(pool, requests, tokens, requestsPerMinute, tokensPerMinute, this.waiting);
		}

	}

}
