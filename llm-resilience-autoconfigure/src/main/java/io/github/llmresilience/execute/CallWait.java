package io.github.llmresilience.execute;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.function.LongSupplier;

import io.github.llmresilience.pool.Grant;
import io.github.llmresilience.pool.PoolSettings;
import io.github.llmresilience.pool.Pools;
import io.github.llmresilience.pool.ReleasePace;
import io.github.llmresilience.pool.ScopePartition;
import org.jspecify.annotations.Nullable;

/**
 * One call's wait for a release: made when the call first waits (a call that is served at
 * once never has one), it holds what the call holds while it waits, until the attempt
 * after the wait is settled: its place in a pool's line at a quota scope, a place it
 * reserved in the pool's share there, its slot in the pool's queue, and its place in the
 * scope's release pace after a gate. It is handed the chain's targets as {@link Place}s
 * and the call's time limits, and answers with how long to wait; the walk of the chain
 * stays the caller's. Confined to one call, one step at a time, as the walk is.
 *
 * <p>
 * The shape is concurrency-limits' blocking limiter around a partitioned one: the pools
 * are the partitioned limiter, a {@link Grant} the permit the call settles, this the
 * blocking part, which never blocks a thread but says how long to wait.
 */
final class CallWait {

	/**
	 * The shortest wait for a release: a release due now is taken after this, so that a
	 * chain that is still rate limited is not walked again in a tight loop.
	 */
	static final long MIN_WAIT_NANOS = 10_000_000L;

	/** The spacing of calls leaving the queue at one gate's release. */
	private static final long STAGGER_NANOS = 1_000_000L;

	/** The most spacings a call waits behind others. */
	private static final int MAX_STAGGER = 100;

	/** How long a released call held back by its scope's pace waits to look again. */
	static final long PACE_NANOS = 50_000_000L;

	/**
	 * A target as a waiting call sees it: its quota scope's gate and its pool share.
	 */
	interface Place {

		/** The quota scope's partition between pools, or {@code null} with pools off. */
		@Nullable ScopePartition partition();

		/** The quota scope's key, as its release pace knows it. */
		String quotaScope();

		/** How long until the scope's gate ends; zero when it is not gated. */
		long gateNanos(Instant now);

		/**
		 * Whether the scope's gate is what holds a call, rather than its pool's share.
		 */
		boolean isGated(Instant now);

		/** How long until the pool's share of the scope has room; zero when now. */
		long shareNanos(PoolSettings pool);

	}

	private final Pools pools;

	private final PoolSettings pool;

	private final Clock clock;

	private final LongSupplier nanoTime;

	/** How long the call has waited for releases so far. */
	private long waitedNanos;

	/** Where the current walk of the chain starts in the call's steps. */
	private int walkStart;

	/** A place reserved in a target's pool share, until the walk reaches it. */
	private @Nullable Grant held;

	private @Nullable Place heldPlace;

	/** When the held place is due, on the monotonic time source. */
	private long heldDue;

	/** The scope whose line of waiting calls (of its pool) the call stands in. */
	private @Nullable ScopePartition lineScope;

	/** The call's place in that line; 0 when it stands in none. */
	private long ticket;

	/** Whether the call holds a slot in its pool's queue, and at which scope. */
	private boolean queued;

	private @Nullable ScopePartition queuedScope;

	/** The quota scope's gate the call waited for, until it goes back. */
	private ReleasePace.@Nullable Release waitedGate;

	/** The gate whose pace held the call back after its wait, until it looks again. */
	private ReleasePace.@Nullable Release pacedGate;

	/** The scope whose pace the call holds a place in, until its attempt is settled. */
	private @Nullable String paceTicket;

	CallWait(Pools pools, PoolSettings pool, Clock clock, LongSupplier nanoTime) {
		this.pools = pools;
		this.pool = pool;
		this.clock = clock;
		this.nanoTime = nanoTime;
	}

	/**
	 * Whether a walk whose steps from {@code from} on are all rate limits (a gated scope,
	 * a spent pool share, a throttled answer) may wait for a release at all.
	 */
	static boolean onlyThrottled(@Nullable List<ChainStep> steps, int from) {
		if (steps == null || steps.size() <= from) {
			return false;
		}
		for (int i = from; i < steps.size(); i++) {
			if (!steps.get(i).isThrottle()) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Draw on a pooled target's scope: the place the wait reserved there once it is due,
	 * else a draw now in the call's place in the line.
	 * @return the draw, or {@code null} when there is no room
	 */
	@Nullable Grant draw(Place place, ScopePartition partition) {
		if (this.held != null && this.heldPlace == place && now() >= this.heldDue) {
			Grant grant = this.held;
			this.held = null;
			this.heldPlace = null;
			leaveLine();
			return grant;
		}
		Grant grant = this.pools.tryTake(partition, this.pool, (this.lineScope == partition) ? this.ticket : 0);
		if (grant != null) {
			cancelHeld();
		}
		return grant;
	}

	/**
	 * How long until a target whose draw found no room has some for the call: its
	 * reserved place, when it holds one there.
	 */
	long drawNanos(Place place) {
		return (this.held != null && this.heldPlace == place) ? this.heldDue - now() : place.shareNanos(this.pool);
	}

	/** The call was served by a target without waiting: give back what it held. */
	void served() {
		cancelHeld();
	}

	/**
	 * The chain is exhausted. When every target of this walk was only rate limited, the
	 * earliest release comes within the pool's {@code max-wait} and before the call's
	 * deadline, and the pool's queue has room, the call waits for that release instead of
	 * failing: it takes a place in the queue, and (when a pool share is what holds it)
	 * reserves its place in the share, so that waiting calls are served in arrival order.
	 * @param places the chain's targets
	 * @param steps the call's steps so far
	 * @param deadline the call's deadline on the monotonic time source, or
	 * {@link Long#MAX_VALUE} when waits move it (the call named none)
	 * @return how long to wait before walking the chain again ({@link #walkAgain}), or -1
	 * when the call ends now
	 */
	long next(Place[] places, @Nullable List<ChainStep> steps, long deadline) {
		// A walk that ends here made no attempt: a place in a scope's pace is free again.
		abandoned();
		ReleasePace.Release paced = this.pacedGate;
		if (paced != null) {
			this.pacedGate = null;
			return paceWait(paced, deadline);
		}
		if (!onlyThrottled(steps, this.walkStart) || this.pool.maxWait().isZero()) {
			cancelHeld();
			return -1;
		}
		Instant now = this.clock.instant();
		long nowNanos = now();
		long maxWait = waitLeft(nowNanos, deadline);
		Place first = null;
		long earliest = Long.MAX_VALUE;
		for (Place place : places) {
			long release = Math.max(place.gateNanos(now), place.shareNanos(this.pool));
			if (this.held != null && place == this.heldPlace) {
				// Its own place comes at the reservation, or earlier when a pool lends.
				release = Math.max(place.gateNanos(now), Math.min(release, this.heldDue - nowNanos));
			}
			if (release < earliest) {
				earliest = release;
				first = place;
			}
		}
		if (first == null || earliest > maxWait) {
			cancelHeld();
			return -1;
		}
		ScopePartition partition = first.partition();
		if ((this.held != null && this.heldPlace != first) || this.lineScope != partition) {
			cancelHeld();
		}
		long wait = Math.max(earliest, MIN_WAIT_NANOS);
		boolean share = partition != null && !first.isGated(now);
		if (share && this.lineScope == null) {
			// The pool's share holds the call: it takes its place in the pool's line.
			this.ticket = this.pools.enter(partition, this.pool);
			this.lineScope = partition;
		}
		if (share && this.held == null) {
			// Reserve the next place in the share, in arrival order, unless another pool
			// lends sooner (then the call looks again then, if first in line).
			Grant reserved = this.pools.reserve(partition, this.pool, maxWait);
			long lend = this.pools.lendNanos(partition, this.pool);
			if (reserved != null) {
				this.held = reserved;
				this.heldPlace = first;
				this.heldDue = nowNanos + reserved.waitNanos();
			}
			wait = Math.max(Math.min((reserved != null) ? reserved.waitNanos() : Long.MAX_VALUE, lend), MIN_WAIT_NANOS);
			if (wait > maxWait) {
				cancelHeld();
				return -1;
			}
		}
		int ahead = this.pools.enqueue(this.pool, partition);
		if (ahead < 0) {
			cancelHeld();
			return -1;
		}
		if (first.isGated(now)) {
			this.waitedGate = this.pools.pace().waiting(first.quotaScope());
		}
		if (share) {
			// Behind others of its pool: they take what is lent first.
			ahead = this.pools.ahead(partition, this.pool, this.ticket);
		}
		if (this.held == null || nowNanos + wait < this.heldDue) {
			// Calls waiting for one release leave a millisecond apart, in arrival order:
			// the first finds out whether the limit has really cleared (or takes what
			// another pool lends), and a gate it meets again holds the ones behind it
			// without a request.
			wait = Math.min(wait + Math.min(ahead, MAX_STAGGER) * STAGGER_NANOS, maxWait);
		}
		this.queued = true;
		this.queuedScope = partition;
		this.waitedNanos += wait;
		return wait;
	}

	/**
	 * A released call whose scope's pace holds it: wait {@link #PACE_NANOS} and try
	 * again, within the pool's {@code max-wait}.
	 */
	private long paceWait(ReleasePace.Release gate, long deadline) {
		if (PACE_NANOS > waitLeft(now(), deadline) || this.pools.enqueue(this.pool, null) < 0) {
			return -1;
		}
		this.queued = true;
		this.queuedScope = null;
		this.waitedGate = gate;
		this.waitedNanos += PACE_NANOS;
		return PACE_NANOS;
	}

	/**
	 * How much longer the call may wait for releases: what is left of its pool's
	 * {@code max-wait}, and before the deadline when it has one of its own.
	 */
	private long waitLeft(long nowNanos, long deadline) {
		long poolWait = this.pool.maxWait().toNanos() - this.waitedNanos;
		return (deadline == Long.MAX_VALUE) ? poolWait : Math.min(poolWait, deadline - nowNanos - MIN_WAIT_NANOS);
	}

	/**
	 * The wait of {@link #next} is over.
	 * @param stepCount how many steps the call has taken so far: the next walk starts
	 * after them
	 * @param deadline as for {@link #next}
	 * @return whether to walk the chain again from its first target; {@code false} when
	 * calls released before this one are still on their way to the scope, and the call
	 * looks again shortly ({@link #next}) without walking the chain
	 */
	boolean walkAgain(int stepCount, long deadline) {
		leaveQueue();
		ReleasePace.Release gate = this.waitedGate;
		this.waitedGate = null;
		if (gate != null) {
			// A call whose wait runs out before it could look again goes, unless the
			// provider refused a call of the scope meanwhile: its limit has cleared.
			if (!this.pools.pace().tryEnter(gate, now(), PACE_NANOS > waitLeft(now(), deadline))) {
				this.pacedGate = gate;
				return false;
			}
			this.paceTicket = gate.scope();
		}
		this.walkStart = stepCount;
		return true;
	}

	/**
	 * The attempt after the wait was settled: leave the scope's pace.
	 * @param throttled whether it was rate limited again
	 */
	void settled(boolean throttled) {
		String ticket = this.paceTicket;
		if (ticket != null) {
			this.paceTicket = null;
			this.pools.pace().exit(ticket, throttled, now());
		}
	}

	/**
	 * The attempt after the wait ended without an answer: its place in the pace is free.
	 */
	void abandoned() {
		String ticket = this.paceTicket;
		if (ticket != null) {
			this.paceTicket = null;
			this.pools.pace().abandon(ticket);
		}
	}

	/** The call was cancelled while it waited: give its places back. */
	void cancel() {
		leaveQueue();
		cancelHeld();
		abandoned();
	}

	private void cancelHeld() {
		Grant held = this.held;
		if (held != null) {
			this.held = null;
			this.heldPlace = null;
			held.cancel();
		}
		leaveLine();
	}

	private void leaveLine() {
		ScopePartition scope = this.lineScope;
		if (scope != null) {
			this.lineScope = null;
			this.pools.leave(scope, this.pool, this.ticket);
			this.ticket = 0;
		}
	}

	private void leaveQueue() {
		if (this.queued) {
			this.queued = false;
			this.pools.dequeue(this.pool, this.queuedScope);
			this.queuedScope = null;
		}
	}

	private long now() {
		return this.nanoTime.getAsLong();
	}

}
