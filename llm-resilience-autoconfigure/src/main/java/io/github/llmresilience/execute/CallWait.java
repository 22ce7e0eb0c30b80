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
 * after the wait is settled: its place in a quota scope's line (the scope's fair order
 * between pools), its slot in the pool's queue, and its place in the scope's release pace
 * after a gate. It is handed the chain's targets as {@link Place}s and the call's time
 * limits, and answers with how long to wait; the walk of the chain stays the caller's.
 * Confined to one call, one step at a time, as the walk is.
 *
 * <p>
 * Two kinds of wait, bounded differently. A gate is the provider's own word (its
 * {@code Retry-After}): when every target is only rate limited, nothing else can serve
 * the call, so it waits for the earliest release up to its deadline (its own, or
 * {@code timeouts.call} of waiting when it named none), whatever its pool. A share is
 * this pod's own decision, which keeps room for the other pools: a call stands in a
 * scope's line at most its pool's {@code max-wait}.
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
	 * A target as a waiting call sees it: its quota scope's gate and its partition.
	 */
	interface Place {

		/** The quota scope's partition between pools, or {@code null} with pools off. */
		@Nullable ScopePartition partition();

		/** The quota scope's key, as its release pace knows it. */
		String quotaScope();

		/** How long until the scope's gate ends; zero when it is not gated. */
		long gateNanos(Instant now);

		/**
		 * Whether the scope's gate is what holds a call, rather than its partition.
		 */
		boolean isGated(Instant now);

		/**
		 * How long until overload control may admit a call here (a place under its
		 * failure domain's limit frees up); zero when it would now.
		 */
		long slotNanos();

	}

	private final Pools pools;

	private final PoolSettings pool;

	private final Clock clock;

	private final LongSupplier nanoTime;

	/**
	 * How long a call that named no deadline may wait for gates in all:
	 * {@code timeouts.call}.
	 */
	private final long gateBudgetNanos;

	/** How long the call has waited for gates so far. */
	private long gateWaitedNanos;

	/** How long the call has stood in scopes' lines so far. */
	private long shareWaitedNanos;

	/**
	 * When the current wait began: what it took is counted when it ends, as time on the
	 * monotonic source, not as the wait asked for (a timer fires late on a busy machine,
	 * and a line's short looks add up).
	 */
	private long waitSince;

	/** Whether the current wait is a turn in a scope's line (else a gate's). */
	private boolean waitingShare;

	/** Where the current walk of the chain starts in the call's steps. */
	private int walkStart;

	/** The scope whose line of waiting calls the call stands in. */
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

	/**
	 * @param gateBudgetNanos how long a call that named no deadline may wait for gates in
	 * all
	 */
	CallWait(Pools pools, PoolSettings pool, Clock clock, LongSupplier nanoTime, long gateBudgetNanos) {
		this.pools = pools;
		this.pool = pool;
		this.clock = clock;
		this.nanoTime = nanoTime;
		this.gateBudgetNanos = gateBudgetNanos;
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
	 * Whether a walk whose steps from {@code from} on are all rate limits or failure
	 * domains at their concurrency limit may wait: a place under a limit frees up when a
	 * call in flight ends, as a pool's share refills.
	 */
	static boolean onlyWaitable(@Nullable List<ChainStep> steps, int from) {
		if (steps == null || steps.size() <= from) {
			return false;
		}
		for (int i = from; i < steps.size(); i++) {
			ChainStep step = steps.get(i);
			if (!step.isThrottle() && step.skipped() != ChainStep.Skip.AT_CONCURRENCY_LIMIT) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Draw on a pooled target's scope, in the call's place in its line there.
	 * @return the draw, or {@code null} when there is no room
	 */
	@Nullable Grant draw(Place place, ScopePartition partition) {
		boolean inLine = this.lineScope == partition;
		Grant grant = this.pools.tryTake(partition, this.pool, inLine ? this.ticket : 0);
		if (grant != null) {
			if (inLine) {
				// Drawing took the call out of the line.
				this.lineScope = null;
				this.ticket = 0;
			}
			else {
				leaveLine();
			}
		}
		return grant;
	}

	/**
	 * How long until a target whose draw found no room has some for the call, in its
	 * place in the line there.
	 */
	long drawNanos(Place place) {
		return shareNanos(place);
	}

	private long shareNanos(Place place) {
		ScopePartition partition = place.partition();
		if (partition == null) {
			return 0;
		}
		return this.pools.waitNanos(partition, this.pool, (this.lineScope == partition) ? this.ticket : 0);
	}

	/** The call was served by a target without waiting: give back what it held. */
	void served() {
		leaveLine();
	}

	/**
	 * The chain is exhausted. When every target of this walk was only rate limited, the
	 * earliest release comes in time (a gate's before the call's deadline, a share's
	 * within the pool's {@code max-wait} too), and the pool's queue has room, the call
	 * waits for that release instead of failing: it takes a place in the queue, and (when
	 * a scope's partition is what holds it) in the scope's line, so that waiting calls
	 * are served in the scope's fair order.
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
		if (!onlyWaitable(steps, this.walkStart) || this.pool.maxWait().isZero()) {
			leaveLine();
			return -1;
		}
		Instant now = this.clock.instant();
		long nowNanos = now();
		Place first = null;
		long earliest = Long.MAX_VALUE;
		boolean slot = false;
		for (Place place : places) {
			long rate = Math.max(place.gateNanos(now), shareNanos(place));
			long free = place.slotNanos();
			long release = Math.max(rate, free);
			if (release < earliest) {
				earliest = release;
				first = place;
				slot = free > rate;
			}
		}
		if (first == null) {
			leaveLine();
			return -1;
		}
		ScopePartition partition = first.partition();
		// A place under a concurrency limit, like a pool's share, is this pod's own
		// decision: waited for within the pool's max-wait, outside the scope's line.
		boolean share = partition != null && !first.isGated(now) && !slot;
		boolean own = share || (slot && !first.isGated(now));
		long left = own ? shareLeft(nowNanos, deadline) : gateLeft(nowNanos, deadline);
		if (earliest > left) {
			leaveLine();
			return -1;
		}
		if (this.lineScope != null && (!share || this.lineScope != partition)) {
			leaveLine();
		}
		long wait = Math.max(earliest, MIN_WAIT_NANOS);
		if (share && this.lineScope == null) {
			// The scope's partition holds the call: it takes its place in the line, and
			// waits for what the calls before it there need, and its own.
			this.ticket = this.pools.enter(partition, this.pool);
			this.lineScope = partition;
			wait = Math.max(this.pools.waitNanos(partition, this.pool, this.ticket), MIN_WAIT_NANOS);
			if (wait > left) {
				leaveLine();
				return -1;
			}
		}
		int ahead = this.pools.enqueue(this.pool, partition);
		if (ahead < 0) {
			leaveLine();
			return -1;
		}
		if (!own) {
			if (first.isGated(now)) {
				this.waitedGate = this.pools.pace().waiting(first.quotaScope());
			}
			// Calls waiting for one release leave a millisecond apart, in arrival order:
			// the first finds out whether the limit has really cleared, and a gate it
			// meets again holds the ones behind it without a request. (In a line, each
			// call's wait already counts the calls before it.)
			wait = Math.min(wait + Math.min(ahead, MAX_STAGGER) * STAGGER_NANOS, Math.max(left, MIN_WAIT_NANOS));
		}
		this.queued = true;
		this.queuedScope = partition;
		this.waitingShare = own;
		this.waitSince = now();
		return wait;
	}

	/**
	 * A released call whose scope's pace holds it: wait {@link #PACE_NANOS} and try
	 * again, before its deadline.
	 */
	private long paceWait(ReleasePace.Release gate, long deadline) {
		if (PACE_NANOS > gateLeft(now(), deadline) || this.pools.enqueue(this.pool, null) < 0) {
			return -1;
		}
		this.queued = true;
		this.queuedScope = null;
		this.waitedGate = gate;
		this.waitingShare = false;
		this.waitSince = now();
		return PACE_NANOS;
	}

	/**
	 * How much longer the call may wait for gates: until its own deadline, or (named
	 * none) what is left of {@code timeouts.call} of waiting.
	 */
	private long gateLeft(long nowNanos, long deadline) {
		return (deadline == Long.MAX_VALUE) ? this.gateBudgetNanos - this.gateWaitedNanos
				: deadline - nowNanos - MIN_WAIT_NANOS;
	}

	/**
	 * How much longer the call may stand in a scope's line: what is left of its pool's
	 * {@code max-wait}, and before its own deadline when it has one.
	 */
	private long shareLeft(long nowNanos, long deadline) {
		long poolWait = this.pool.maxWait().toNanos() - this.shareWaitedNanos;
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
		if (this.queued) {
			long waited = Math.max(0, now() - this.waitSince);
			if (this.waitingShare) {
				this.shareWaitedNanos += waited;
			}
			else {
				this.gateWaitedNanos += waited;
			}
		}
		leaveQueue();
		ReleasePace.Release gate = this.waitedGate;
		this.waitedGate = null;
		if (gate != null) {
			// A call whose wait runs out before it could look again goes, unless the
			// provider refused a call of the scope meanwhile: its limit has cleared.
			if (!this.pools.pace().tryEnter(gate, now(), PACE_NANOS > gateLeft(now(), deadline))) {
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
		leaveLine();
		abandoned();
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
