package io.github.llmresilience.pool;

import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;

/**
 * One quota scope's supply on this pod, leased from the fleet's shared bucket
 * ({@link LeaseStore}): a lease sized to the pod's recent demand, drawn on locally (no
 * store on the call path), exchanged in the background for a new one when it runs low or
 * its period ends (what it did not use goes back). A lease is drawn on for at most its
 * period, timed from when the pod asked for it, so never after the store's end of it. An
 * idle pod asks for nothing and holds nothing. A pod that cannot reach the store keeps
 * its lease until it ends, then draws on its equal part of the scope (a bucket of
 * {@code floor(capacity / pods)} from the fallback source, starting empty when it follows
 * a lease), and debits what it sent from it to the fleet's bucket at its next exchange.
 * <p>
 * Thread safe: every method holds the supply's lock briefly and never waits on the store.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public final class LeasedSupply implements ScopeSupply {

	/** How long a call short of its lease looks again when an exchange goes: 5 ms. */
	static final long EXCHANGE_WAIT_NANOS = 5_000_000L;

	/** Where the supply draws from now. */
	public enum Mode {

		/** Nothing yet: the first exchange is under way. */
		STARTING,
		/** A lease from the fleet (possibly empty, or being exchanged). */
		LEASED,
		/** The pod's equal part: the store could not be reached. */
		PART

	}

	private final String scope;

	private final String holder;

	private final long periodNanos;

	private final long timeoutNanos;

	private final long tickNanos;

	private final LongSupplier nanoTime;

	private final SupplySource parts;

	private final Runnable nudge;

	private Capacity capacity;

	private int pods;

	// The lease

	private boolean leased;

	private long leftRequests;

	private long leftTokens;

	private long grantedRequests;

	private long grantedTokens;

	private long deadline;

	private boolean everLeased;

	/** Taken anyway without a lease: paid from the next one. */
	private long debtRequests;

	private long debtTokens;

	// The exchange under way

	private long sequence;

	private @Nullable Pending pending;

	/** No exchange before this (after one answered short, or given up). */
	private long quietUntil;

	// The equal part

	private @Nullable ScopeSupply part;

	private Capacity partCapacity = new Capacity(0, 0);

	/**
	 * Sent from the part while the exchange that ended it was under way: debited next.
	 */
	private long lateDebitRequests;

	private long lateDebitTokens;

	// Demand

	private long windowStart;

	private long countedRequests;

	private long countedTokens;

	private long refused;

	private long refusedTokens;

	/**
	 * The most the calls waiting in the scope's line wanted beyond what the lease held,
	 * since the last exchange: a line is demand that draws nothing until it is served, so
	 * that the taken-and-refused rate alone would size a busy pod's lease to what it got
	 * rather than to what it waits for.
	 */
	private long queuedRequests;

	private long queuedTokens;

	/**
	 * The most requests calls that cannot wait a period needed beyond what the lease
	 * held, since the last exchange ({@link #pressing}): asked for as urgent.
	 */
	private long urgentRequests;

	private double requestRate;

	private double tokenRate;

	private long lastTokensPerCall = 1;

	/** Released: the pod left. */
	private boolean closed;

	LeasedSupply(String scope, String holder, Capacity capacity, int pods, LeaseSettings settings,
			LongSupplier nanoTime, SupplySource parts, Runnable nudge) {
		this.scope = scope;
		this.holder = holder;
		this.capacity = capacity;
		this.pods = Math.max(1, pods);
		this.periodNanos = settings.period().toNanos();
		this.timeoutNanos = settings.exchangeTimeout().toNanos();
		this.tickNanos = tickNanos(settings);
		this.nanoTime = nanoTime;
		this.parts = parts;
		this.nudge = nudge;
		this.windowStart = nanoTime.getAsLong();
		// The scope is made for a call that wants it now.
		this.refused = 1;
	}

	/**
	 * How often the background looks at each lease: a tenth of the period, between 10 ms
	 * and 100 ms. The look is local; it is also how soon a pod whose exchange found the
	 * fleet's bucket empty asks again, so that busy pods take turns at its refill every
	 * 100 ms rather than every half second with 5 s leases (a pod's interactive calls
	 * then wait for a turn beyond their 2 s; the fleet pools drill, docs/pools.md).
	 */
	static long tickNanos(LeaseSettings settings) {
		return Math.max(10_000_000L, Math.min(100_000_000L, settings.period().toNanos() / 10));
	}

	public String scope() {
		return this.scope;
	}

	// ScopeSupply

	@Override
	public boolean tryTake(long requests, long tokens) {
		boolean taken;
		ScopeSupply fallback;
		synchronized (this) {
			long now = this.nanoTime.getAsLong();
			if (usable(now)) {
				taken = fits(requests, tokens);
				if (taken) {
					take(requests, tokens);
				}
				else {
					refuse(requests, tokens);
				}
				fallback = null;
			}
			else {
				fallback = this.part;
				taken = fallback != null && fallback.tryTake(requests, tokens);
				if (taken) {
					count(requests, tokens);
				}
				else {
					refuse(requests, tokens);
				}
			}
		}
		if (!taken) {
			this.nudge.run();
		}
		return taken;
	}

	@Override
	public synchronized void takeAnyway(long requests, long tokens) {
		long now = this.nanoTime.getAsLong();
		count(requests, tokens);
		if (usable(now)) {
			take(requests, tokens);
		}
		else if (this.part != null) {
			this.part.takeAnyway(requests, tokens);
		}
		else {
			this.debtRequests += Math.max(0, requests);
			this.debtTokens += Math.max(0, tokens);
		}
	}

	@Override
	public synchronized void giveBack(long requests, long tokens) {
		long now = this.nanoTime.getAsLong();
		if (usable(now)) {
			// Taken from this or an earlier lease and not sent: the provider still has
			// it.
			this.leftRequests += Math.max(0, requests);
			this.leftTokens += Math.max(0, tokens);
		}
		else if (this.part != null) {
			this.part.giveBack(requests, tokens);
		}
		else {
			this.debtRequests = Math.max(0, this.debtRequests - Math.max(0, requests));
			this.debtTokens = Math.max(0, this.debtTokens - Math.max(0, tokens));
		}
	}

	@Override
	public long nanosUntil(long requests, long tokens) {
		long wait;
		synchronized (this) {
			long now = this.nanoTime.getAsLong();
			if (usable(now)) {
				if (fits(requests, tokens)) {
					return 0;
				}
				queued(requests - Math.max(0, this.leftRequests), tokens - Math.max(0, this.leftTokens));
				wait = fleetRefill(requests - this.leftRequests, tokens - this.leftTokens);
			}
			else if (this.part != null) {
				return this.part.nanosUntil(requests, tokens);
			}
			else {
				queued(requests, tokens);
				wait = fleetRefill(requests, tokens);
			}
			if (now - this.quietUntil < 0) {
				// The fleet's bucket answered short lately: its refill is the wait.
				return Math.max(wait, 1);
			}
		}
		// An exchange goes now: look again after a round trip, or the refill if sooner.
		this.nudge.run();
		return Math.max(1, Math.min(wait, EXCHANGE_WAIT_NANOS));
	}

	@Override
	public synchronized void pressing(long requests, long patienceNanos) {
		if (patienceNanos >= this.periodNanos) {
			return;
		}
		long held = usable(this.nanoTime.getAsLong()) ? Math.max(0, this.leftRequests) : 0;
		this.urgentRequests = Math.max(this.urgentRequests, requests - held);
	}

	@Override
	public synchronized long requests() {
		if (usable(this.nanoTime.getAsLong())) {
			return this.leftRequests;
		}
		return (this.part != null) ? this.part.requests() : -this.debtRequests;
	}

	@Override
	public synchronized long tokens() {
		if (usable(this.nanoTime.getAsLong())) {
			return (this.capacity.tokensPerMinute() > 0) ? this.leftTokens : 0;
		}
		return (this.part != null) ? this.part.tokens() : -this.debtTokens;
	}

	@Override
	public synchronized void resize(Capacity capacity, int pods) {
		this.capacity = capacity;
		this.pods = Math.max(1, pods);
		if (this.part != null) {
			this.part.resize(capacity, this.pods);
			this.partCapacity = Capacity.partOf(capacity, this.pods);
		}
	}

	// State, for the endpoint and tests

	/** Where the supply draws from now. */
	public synchronized Mode mode() {
		if (this.part != null && !usable(this.nanoTime.getAsLong())) {
			return Mode.PART;
		}
		return this.everLeased ? Mode.LEASED : Mode.STARTING;
	}

	/**
	 * The end of the lease drawn on (on the engine's monotonic clock), or
	 * {@link Long#MIN_VALUE} when none is.
	 */
	public synchronized long leaseEndNanos() {
		return usable(this.nanoTime.getAsLong()) ? this.deadline : Long.MIN_VALUE;
	}

	/** The pod's recent demand in requests a second. */
	public synchronized double requestRate() {
		return this.requestRate;
	}

	// The background

	/**
	 * Look at the lease (on the background's thread): measure the demand, end a lease
	 * whose period is over, give up an exchange unanswered for too long (falling back to
	 * the equal part), and say what to exchange now, if anything.
	 * @return the exchange to send, or {@code null}
	 */
	synchronized LeaseStore.@Nullable Exchange look() {
		long now = this.nanoTime.getAsLong();
		long window = now - this.windowStart;
		if (window >= this.tickNanos) {
			this.requestRate = LeaseSizing.rate(this.requestRate, this.countedRequests, window);
			this.tokenRate = LeaseSizing.rate(this.tokenRate, this.countedTokens, window);
			this.countedRequests = 0;
			this.countedTokens = 0;
			this.windowStart = now;
		}
		if (this.closed) {
			return null;
		}
		Pending sent = this.pending;
		if (sent != null) {
			if (now - sent.sentAt < this.timeoutNanos) {
				return null;
			}
			// Given up: what it returned is lost (it may have been applied), and the next
			// exchange goes under a new number.
			givenUp(sent.sequence);
		}
		if (this.leased && now - this.deadline >= 0) {
			endLease();
		}
		if (now - this.quietUntil < 0) {
			return null;
		}
		long waiting = Math.max(this.refused, this.queuedRequests);
		long askRequests = LeaseSizing.ask(this.requestRate, waiting, this.periodNanos,
				this.capacity.requestsPerMinute(), 1);
		long askTokens = LeaseSizing.ask(this.tokenRate, (waiting > 0) ? 1 : 0, this.periodNanos,
				this.capacity.tokensPerMinute(),
				Math.max(this.queuedTokens, Math.max(this.refusedTokens, this.lastTokensPerCall)));
		boolean wants = askRequests > 0 || askTokens > 0;
		boolean exchange;
		if (this.leased) {
			boolean low = low(this.leftRequests, this.grantedRequests, this.requestRate,
					this.capacity.requestsPerMinute())
					|| low(this.leftTokens, this.grantedTokens, this.tokenRate, this.capacity.tokensPerMinute());
			boolean ending = now - (this.deadline - this.periodNanos / 5) >= 0;
			// At its end a lease with something left goes back (asking again or not); an
			// empty one that nobody wants lapses.
			exchange = (low && wants) || (ending && (wants || this.leftRequests > 0 || this.leftTokens > 0));
		}
		else {
			exchange = wants;
		}
		if (!exchange) {
			return null;
		}
		return send(now, askRequests, askTokens);
	}

	private boolean low(long left, long granted, double rate, long perMinute) {
		return perMinute > 0 && LeaseSizing.low(left, granted, rate, this.tickNanos);
	}

	private LeaseStore.Exchange send(long now, long askRequests, long askTokens) {
		long returnedRequests = 0;
		long returnedTokens = 0;
		if (this.leased) {
			// The exchange ends the lease: what is left goes back, a debt is carried.
			returnedRequests = Math.max(0, this.leftRequests);
			returnedTokens = Math.max(0, this.leftTokens);
			endLease();
		}
		long debitRequests = this.lateDebitRequests;
		long debitTokens = this.lateDebitTokens;
		ScopeSupply fallback = this.part;
		long partRequests = 0;
		long partTokens = 0;
		if (fallback != null) {
			// What the part is below full is what this pod sent from it lately, as the
			// provider's bucket sees it: taken from the fleet's bucket (again, when an
			// earlier exchange that carried it was given up: conservative).
			partRequests = fallback.requests();
			partTokens = fallback.tokens();
			debitRequests += Math.max(0, this.partCapacity.requestsPerMinute() - partRequests);
			debitTokens += Math.max(0, this.partCapacity.tokensPerMinute() - partTokens);
		}
		this.sequence++;
		this.pending = new Pending(this.sequence, now, partRequests, partTokens);
		this.refused = 0;
		this.refusedTokens = 0;
		this.queuedRequests = 0;
		this.queuedTokens = 0;
		long urgent = Math.min(askRequests, Math.max(0, this.urgentRequests));
		this.urgentRequests = 0;
		Capacity capacity = this.capacity;
		return new LeaseStore.Exchange(this.scope, this.holder, this.sequence, capacity,
				Math.max(1, this.periodNanos / 1_000_000), returnedRequests, returnedTokens, askRequests, askTokens,
				debitRequests, debitTokens, urgent);
	}

	/**
	 * The pod leaves: end the lease and say what goes back (nothing asked), or
	 * {@code null} when nothing is held; no exchange follows.
	 */
	synchronized LeaseStore.@Nullable Exchange release() {
		long now = this.nanoTime.getAsLong();
		boolean holds = usable(now) && (this.leftRequests > 0 || this.leftTokens > 0);
		this.closed = true;
		return holds ? send(now, 0, 0) : null;
	}

	/** The store answered an exchange (on the store's thread). */
	synchronized void answered(LeaseStore.Lease lease) {
		Pending sent = this.pending;
		if (sent == null || sent.sequence != lease.sequence()) {
			// Given up before it came: the lease is never drawn on (the store ends it).
			return;
		}
		this.pending = null;
		long now = this.nanoTime.getAsLong();
		ScopeSupply fallback = this.part;
		if (fallback != null) {
			this.lateDebitRequests = Math.max(0, sent.partRequests - fallback.requests());
			this.lateDebitTokens = Math.max(0, sent.partTokens - fallback.tokens());
			this.part = null;
		}
		else {
			this.lateDebitRequests = 0;
			this.lateDebitTokens = 0;
		}
		this.leased = true;
		this.everLeased = true;
		this.grantedRequests = lease.requests();
		this.grantedTokens = lease.tokens();
		this.leftRequests = lease.requests() - this.debtRequests;
		this.leftTokens = lease.tokens() - this.debtTokens;
		this.debtRequests = 0;
		this.debtTokens = 0;
		// Timed from when the pod asked: the store's end is later.
		this.deadline = sent.sentAt + this.periodNanos;
		if (lease.requests() < 1 && this.capacity.requestsPerMinute() > 0) {
			// The fleet's bucket is empty: ask again after a look, not at every call.
			this.quietUntil = now + this.tickNanos;
		}
	}

	/** The exchange failed or was not answered in time (on any thread). */
	synchronized void failed(long sequence) {
		Pending sent = this.pending;
		if (sent != null && sent.sequence == sequence) {
			givenUp(sequence);
		}
	}

	private void givenUp(long sequence) {
		this.pending = null;
		this.quietUntil = this.nanoTime.getAsLong() + this.tickNanos;
		if (this.part == null && !usable(this.nanoTime.getAsLong())) {
			ScopeSupply fallback = this.parts.supply(this.scope, this.capacity, this.pods);
			this.partCapacity = Capacity.partOf(this.capacity, this.pods);
			if (this.everLeased) {
				// It follows leases whose requests the provider may have seen lately: it
				// starts empty and refills at the pod's part.
				fallback.takeAnyway(Math.max(0, fallback.requests()), Math.max(0, fallback.tokens()));
			}
			if (this.debtRequests > 0 || this.debtTokens > 0) {
				fallback.takeAnyway(this.debtRequests, this.debtTokens);
				this.debtRequests = 0;
				this.debtTokens = 0;
			}
			this.part = fallback;
		}
	}

	private void endLease() {
		this.leased = false;
		this.debtRequests += Math.max(0, -this.leftRequests);
		this.debtTokens += Math.max(0, -this.leftTokens);
		this.leftRequests = 0;
		this.leftTokens = 0;
	}

	private boolean usable(long now) {
		return this.leased && this.pending == null && now - this.deadline < 0;
	}

	private boolean fits(long requests, long tokens) {
		Capacity capacity = this.capacity;
		return (capacity.requestsPerMinute() <= 0 || requests <= 0 || this.leftRequests >= requests)
				&& (capacity.tokensPerMinute() <= 0 || tokens <= 0 || this.leftTokens >= tokens);
	}

	private void take(long requests, long tokens) {
		if (this.capacity.requestsPerMinute() > 0) {
			this.leftRequests -= Math.max(0, requests);
		}
		if (this.capacity.tokensPerMinute() > 0) {
			this.leftTokens -= Math.max(0, tokens);
		}
		count(requests, tokens);
	}

	private void count(long requests, long tokens) {
		this.countedRequests += Math.max(0, requests);
		this.countedTokens += Math.max(0, tokens);
		if (tokens > 0) {
			this.lastTokensPerCall = tokens;
		}
	}

	private void queued(long requests, long tokens) {
		this.queuedRequests = Math.max(this.queuedRequests, requests);
		this.queuedTokens = Math.max(this.queuedTokens, tokens);
	}

	private void refuse(long requests, long tokens) {
		this.refused++;
		this.refusedTokens = Math.max(this.refusedTokens, Math.max(0, tokens));
		this.countedRequests += Math.max(0, requests);
		this.countedTokens += Math.max(0, tokens);
	}

	private long fleetRefill(long requests, long tokens) {
		return Math.max(LeaseSizing.refillNanos(requests, this.capacity.requestsPerMinute()),
				LeaseSizing.refillNanos(tokens, this.capacity.tokensPerMinute()));
	}

	/**
	 * An exchange under way: when it was sent (a lease it brings is timed from then), and
	 * what the part held then.
	 */
	private record Pending(long sequence, long sentAt, long partRequests, long partTokens) {
	}

}
