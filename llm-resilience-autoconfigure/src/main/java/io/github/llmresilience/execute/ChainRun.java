package io.github.llmresilience.execute;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.execute.CallObserver.RetryResult;
import io.github.llmresilience.execute.ChainStep.Skip;
import io.github.llmresilience.pool.PoolSettings;
import io.github.llmresilience.pool.internal.Grant;
import io.github.llmresilience.pool.internal.ReleasePace;
import io.github.llmresilience.pool.internal.ScopePartition;
import io.github.llmresilience.usage.Usage;
import org.jspecify.annotations.Nullable;

/**
 * The state of one logical call as it walks its chain: which target is next, what each
 * attempt's verdict was, and what to do after a failure. Both the reactive and the
 * blocking driver use it; it is confined to one call, one step at a time.
 *
 * <p>
 * Every attempt holds a breaker permit from {@link #nextTarget()} (or a retry's acquire)
 * until exactly one of {@link #succeeded}, {@link #failed}, {@link #interrupted} or
 * {@link #abandoned} settles it. {@link #failed} and {@link #interrupted} settle it in a
 * {@code finally}: whatever an extractor, classifier or listener throws, the permit is
 * recorded or given back, so a half-open breaker cannot be wedged by a failing callback.
 */
final class ChainRun {

	/**
	 * The shortest wait for a release: a release due now is taken after this, so that a
	 * chain that is still rate limited is not walked again in a tight loop.
	 */
	private static final long MIN_WAIT_NANOS = 10_000_000L;

	/** The spacing of calls leaving the queue at one gate's release. */
	private static final long STAGGER_NANOS = 1_000_000L;

	/** The most spacings a call waits behind others. */
	private static final int MAX_STAGGER = 100;

	/** How long a released call held back by its scope's pace waits to look again. */
	private static final long PACE_NANOS = 50_000_000L;

	/** What to do after a failed attempt. */
	enum Next {

		/** Wait {@link ChainRun#delayNanos()}, then try the same target again. */
		RETRY,

		/** Go on to the next target of the chain. */
		NEXT_TARGET,

		/** End the call with {@link ChainRun#stopError()}. */
		STOP

	}

	private final CallContext context;

	private final String chain;

	/**
	 * The chain's targets in the order this call tries them: the chain's own array until
	 * a provider is marked overloaded, then this call's copy, its untried part reordered.
	 */
	private TargetRuntime[] targets;

	private boolean ownOrder;

	private final long startNanos;

	/**
	 * When the call must end; a call that named no deadline moves it by each wait for a
	 * release.
	 */
	private long deadlineNanos;

	/**
	 * Whether waits for a release are added to the deadline: the call named none, so
	 * {@code timeouts.call} is its working time, and its pool's {@code max-wait} bounds
	 * the waiting on top.
	 */
	private final boolean waitExtendsDeadline;

	/** How long the call has waited for releases so far. */
	private long waitedNanos;

	private final Attempt.CallId callId;

	/** Whether the next attempt is the call's first, whose start is the run's start. */
	private boolean firstAttempt = true;

	private final boolean streaming;

	private int index = -1;

	private int targetAttempts;

	private int attempts;

	private @Nullable List<ChainStep> steps;

	private @Nullable Verdict @Nullable [] lastVerdicts;

	private @Nullable Throwable lastError;

	private long delayNanos;

	/**
	 * Every backoff of this call so far: a field, so a call without retries pays nothing.
	 */
	private long backoffNanos;

	private @Nullable Throwable stopError;

	/** The call's traffic class. */
	private final PoolSettings pool;

	/** The draw of the current attempt's target on its pool, or {@code null}. */
	private @Nullable Grant grant;

	/** The draw of the last settled attempt, which a retry of its target draws again. */
	private @Nullable Grant lastGrant;

	/** A place a wait reserved in a target's pool share, until the walk reaches it. */
	private @Nullable Grant held;

	private @Nullable TargetRuntime heldTarget;

	/** The scope whose line of waiting calls (of its pool) this call stands in. */
	private @Nullable ScopePartition lineScope;

	/** The call's place in that line; 0 when it stands in none. */
	private long ticket;

	/** When the held place is due, on the monotonic time source. */
	private long heldDue;

	/**
	 * Where this walk of the chain starts in {@link #steps}: a wait starts a new walk.
	 */
	private int walkStart;

	/** The scope partition whose queue the call waits in, while it waits. */
	private @Nullable ScopePartition queuedScope;

	private boolean queued;

	/** The quota scope's gate this call waited for, until it goes back. */
	private ReleasePace.@Nullable Release waitedGate;

	/** The scope whose pace this call holds a place in, until its attempt is settled. */
	private @Nullable String paceTicket;

	/** Whether the pace held the call back after its wait. */
	private boolean paced;

	private ReleasePace.@Nullable Release pacedGate;

	/** The exception that ended the call when no target could serve, once it has. */
	private @Nullable LlmUnavailableException exhaustion;

	ChainRun(CallContext context, String chain, TargetRuntime[] targets, CallOptions options) {
		this(context, chain, targets, options, false);
	}

	/**
	 * @param streaming whether attempts are streams: timed to their first element, their
	 * latency recorded as time to first token
	 */
	ChainRun(CallContext context, String chain, TargetRuntime[] targets, CallOptions options, boolean streaming) {
		this.streaming = streaming;
		this.context = context;
		this.chain = chain;
		this.targets = targets;
		this.startNanos = context.now();
		this.pool = context.pools().pool(options.pool());
		this.waitExtendsDeadline = options.deadline() == null;
		Duration deadline = (options.deadline() != null) ? options.deadline() : context.callTimeout();
		this.deadlineNanos = this.startNanos + deadline.toNanos();
		this.callId = new Attempt.CallId(options.idempotencyKey());
	}

	long delayNanos() {
		return this.delayNanos;
	}

	/** The error that ends the call, as the caller gets it. */
	Throwable stopError() {
		return this.stopError;
	}

	/**
	 * The next usable target, with a breaker permit taken; targets whose account, quota
	 * scope or breaker refuse are skipped without a request.
	 * @return the target, or {@code null} when the chain is exhausted
	 */
	@Nullable TargetRuntime nextTarget() {
		while (++this.index < this.targets.length) {
			if (this.context.overloads().anyMarked()) {
				preferOtherProviders();
			}
			TargetRuntime target = this.targets[this.index];
			ChainStep skip = target.admit();
			if (skip == null) {
				skip = draw(target);
			}
			if (skip == null) {
				// Served by another target than the one a wait reserved a place at.
				cancelHeld();
			}
			if (skip != null) {
				step(skip);
				this.context.observer().onSkipped(this.chain, target.target(), skip.skipped());
				continue;
			}
			this.targetAttempts = 0;
			return target;
		}
		return null;
	}

	/**
	 * Draw on the target's quota scope for the call's pool (quota pools on): the place a
	 * wait reserved there, or a draw now, own share first, then an idle pool's.
	 * @return {@code null} when drawn, else the skip (the breaker permit is given back)
	 */
	private @Nullable ChainStep draw(TargetRuntime target) {
		ScopePartition partition = target.partition();
		if (partition == null) {
			return null;
		}
		boolean holding = this.held != null && this.heldTarget == target;
		if (holding && this.context.now() >= this.heldDue) {
			this.grant = this.held;
			this.held = null;
			this.heldTarget = null;
			leaveLine();
			return null;
		}
		Grant grant = this.context.pools()
			.tryTake(partition, this.pool, (this.lineScope == partition) ? this.ticket : 0);
		if (grant != null) {
			cancelHeld();
			this.grant = grant;
			return null;
		}
		target.release();
		long wait = holding ? this.heldDue - this.context.now() : this.context.pools().waitNanos(partition, this.pool);
		return new ChainStep(target.name(), 0, null, Skip.POOL_EXHAUSTED, Duration.ZERO,
				this.context.clock().instant().plusNanos(Math.max(wait, MIN_WAIT_NANOS)));
	}

	/** Give back a place a wait reserved, and the call's place in the line. */
	private void cancelHeld() {
		Grant held = this.held;
		if (held != null) {
			this.held = null;
			this.heldTarget = null;
			held.cancel();
		}
		leaveLine();
	}

	private void leaveLine() {
		ScopePartition scope = this.lineScope;
		if (scope != null) {
			this.lineScope = null;
			this.context.pools().leave(scope, this.pool, this.ticket);
			this.ticket = 0;
		}
	}

	/**
	 * The chain is exhausted. When every target of this walk was only rate limited (its
	 * scope gated, or its pool's share spent), the earliest release comes within the
	 * pool's {@code max-wait} and before the call's deadline, and the pool's queue has
	 * room, the call waits for that release instead of failing: it takes a place in the
	 * queue, and (when a pool share is what holds it) reserves its place in the share, so
	 * that waiting calls are served in arrival order.
	 * @return how long to wait before walking the chain again ({@link #afterWait()}), or
	 * -1 when the call ends now
	 */
	long releaseWait() {
		// A walk that ends here made no attempt: a place in a scope's pace is free again.
		abandonPace();
		if (this.paced) {
			this.paced = false;
			return paceWait();
		}
		List<ChainStep> all = this.steps;
		if (all == null || all.size() <= this.walkStart || this.pool.maxWait().isZero()) {
			cancelHeld();
			return -1;
		}
		for (int i = this.walkStart; i < all.size(); i++) {
			if (!all.get(i).isThrottle()) {
				cancelHeld();
				return -1;
			}
		}
		Instant now = this.context.clock().instant();
		long nowNanos = this.context.now();
		long poolWait = this.pool.maxWait().toNanos() - this.waitedNanos;
		long maxWait = this.waitExtendsDeadline ? poolWait
				: Math.min(poolWait, this.deadlineNanos - nowNanos - MIN_WAIT_NANOS);
		TargetRuntime first = null;
		long earliest = Long.MAX_VALUE;
		for (TargetRuntime target : this.targets) {
			long release = target.releaseNanos(now, this.pool);
			if (this.held != null && target == this.heldTarget) {
				// Its own place comes at the reservation, or earlier when a pool lends.
				release = Math.max(target.gateNanos(now), Math.min(release, this.heldDue - nowNanos));
			}
			if (release < earliest) {
				earliest = release;
				first = target;
			}
		}
		if (first == null || earliest > maxWait) {
			cancelHeld();
			return -1;
		}
		ScopePartition partition = first.partition();
		if ((this.held != null && this.heldTarget != first) || this.lineScope != partition) {
			cancelHeld();
		}
		long wait = Math.max(earliest, MIN_WAIT_NANOS);
		boolean share = partition != null && !first.isGated(now);
		if (share && this.lineScope == null) {
			// The pool's share holds the call: it takes its place in the pool's line.
			this.ticket = this.context.pools().enter(partition, this.pool);
			this.lineScope = partition;
		}
		if (share && this.held == null) {
			// Reserve the next place in the share, in arrival order, unless another pool
			// lends sooner (then the call looks again then, if first in line).
			Grant reserved = this.context.pools().reserve(partition, this.pool, maxWait);
			long lend = this.context.pools().lendNanos(partition, this.pool);
			if (reserved != null) {
				this.held = reserved;
				this.heldTarget = first;
				this.heldDue = nowNanos + reserved.waitNanos();
			}
			wait = Math.max(Math.min((reserved != null) ? reserved.waitNanos() : Long.MAX_VALUE, lend), MIN_WAIT_NANOS);
			if (wait > maxWait) {
				cancelHeld();
				return -1;
			}
		}
		int ahead = this.context.pools().enqueue(this.pool, partition);
		if (ahead < 0) {
			cancelHeld();
			return -1;
		}
		if (first.isGated(now)) {
			this.waitedGate = this.context.pools().pace().waiting(first.target().quotaScope());
		}
		if (share) {
			// Behind others of its pool: they take what is lent first.
			ahead = this.context.pools().ahead(partition, this.pool, this.ticket);
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
		if (this.waitExtendsDeadline) {
			this.deadlineNanos += wait;
		}
		this.context.observer().onPoolWait(this.chain, this.pool.name(), wait);
		return wait;
	}

	/**
	 * A released call whose scope's pace holds it: wait {@link #PACE_NANOS} and try
	 * again, within the pool's {@code max-wait}.
	 */
	private long paceWait() {
		ReleasePace.Release gate = this.pacedGate;
		this.pacedGate = null;
		if (gate == null || PACE_NANOS > waitLeft() || this.context.pools().enqueue(this.pool, null) < 0) {
			return -1;
		}
		this.queued = true;
		this.queuedScope = null;
		this.waitedGate = gate;
		this.waitedNanos += PACE_NANOS;
		if (this.waitExtendsDeadline) {
			this.deadlineNanos += PACE_NANOS;
		}
		this.context.observer().onPoolWait(this.chain, this.pool.name(), PACE_NANOS);
		return PACE_NANOS;
	}

	/**
	 * How much longer the call may wait for releases: what is left of its pool's
	 * {@code max-wait}, and (with an explicit deadline) before the deadline.
	 */
	private long waitLeft() {
		long poolWait = this.pool.maxWait().toNanos() - this.waitedNanos;
		return this.waitExtendsDeadline ? poolWait
				: Math.min(poolWait, this.deadlineNanos - this.context.now() - MIN_WAIT_NANOS);
	}

	/**
	 * The wait of {@link #releaseWait()} is over: walk the chain again from its first
	 * target.
	 * @return the target to attempt, or {@code null} when the chain is exhausted again
	 */
	@Nullable TargetRuntime afterWait() {
		leaveQueue();
		ReleasePace.Release gate = this.waitedGate;
		this.waitedGate = null;
		if (gate != null) {
			// A call whose wait runs out before it could look again goes, unless the
			// provider refused a call of the scope meanwhile: its limit has cleared.
			if (!this.context.pools().pace().tryEnter(gate, now(), PACE_NANOS > waitLeft())) {
				// Calls released before this one are still on their way: look again
				// shortly, without walking the chain.
				this.paced = true;
				this.pacedGate = gate;
				return null;
			}
			this.paceTicket = gate.scope();
		}
		this.index = -1;
		this.walkStart = (this.steps != null) ? this.steps.size() : 0;
		return nextTarget();
	}

	private void abandonPace() {
		String ticket = this.paceTicket;
		if (ticket != null) {
			this.paceTicket = null;
			this.context.pools().pace().abandon(ticket);
		}
	}

	/**
	 * Settle the place a released call took in its scope's pace.
	 * @param throttled whether it was rate limited again
	 */
	private void leavePace(boolean throttled) {
		String ticket = this.paceTicket;
		if (ticket != null) {
			this.paceTicket = null;
			this.context.pools().pace().exit(ticket, throttled, now());
		}
	}

	/** The call was cancelled while it waited: give its places back. */
	void cancelWait() {
		leaveQueue();
		cancelHeld();
		abandonPace();
	}

	private void leaveQueue() {
		if (this.queued) {
			this.queued = false;
			this.context.pools().dequeue(this.pool, this.queuedScope);
			this.queuedScope = null;
		}
	}

	/**
	 * While a provider is marked overloaded, the next target tried is the first untried
	 * one of another provider; the overloaded provider's targets (its other models too)
	 * keep their order after them. Only the untried part moves: the verdicts of the tried
	 * targets stay where they were recorded.
	 */
	private void preferOtherProviders() {
		long now = this.context.clock().millis();
		if (!isOverloaded(this.targets[this.index], now)) {
			return;
		}
		for (int j = this.index + 1; j < this.targets.length; j++) {
			if (!isOverloaded(this.targets[j], now)) {
				if (!this.ownOrder) {
					this.targets = this.targets.clone();
					this.ownOrder = true;
				}
				TargetRuntime preferred = this.targets[j];
				System.arraycopy(this.targets, this.index, this.targets, this.index + 1, j - this.index);
				this.targets[this.index] = preferred;
				return;
			}
		}
	}

	private boolean isOverloaded(TargetRuntime target, long nowMillis) {
		return this.context.overloads().isOverloaded(target.target().provider(), nowMillis);
	}

	/**
	 * Whether an untried target of a provider not marked overloaded is left: then a
	 * provider-wide answer is not retried on its own provider.
	 */
	private boolean otherProviderAhead() {
		long now = this.context.clock().millis();
		for (int j = this.index + 1; j < this.targets.length; j++) {
			if (!isOverloaded(this.targets[j], now)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * The backoff of {@link Next#RETRY} has passed: take the breaker permit for the retry
	 * (the breaker may have opened meanwhile, on other calls' failures).
	 * @return the target to attempt next (the same one, or the next usable one when the
	 * breaker refused the retry), or {@code null} when the chain is exhausted
	 */
	@Nullable TargetRuntime afterBackoff(TargetRuntime target) {
		this.backoffNanos += this.delayNanos;
		this.context.observer().onBackoff(this.chain, target.target(), this.delayNanos);
		ChainStep skip = target.acquire();
		if (skip == null) {
			Grant last = this.lastGrant;
			if (last != null) {
				this.grant = last.retry();
			}
			return target;
		}
		step(skip);
		this.context.observer().onSkipped(this.chain, target.target(), skip.skipped());
		return nextTarget();
	}

	/**
	 * Begin an attempt on a target whose breaker permit is held.
	 * @return the attempt, or {@code null} when the deadline has passed (the permit is
	 * given back)
	 */
	@Nullable Attempt begin(TargetRuntime target) {
		Duration timeout = target.timeout(this.streaming).current();
		long left = this.deadlineNanos - this.context.now();
		if (left <= 0) {
			target.release();
			abandonPace();
			skip(target, Skip.DEADLINE, null);
			return null;
		}
		Duration timeLeft = Duration.ofNanos(left);
		if (timeLeft.compareTo(timeout) < 0) {
			timeout = timeLeft;
		}
		this.attempts++;
		this.targetAttempts++;
		if (this.targetAttempts == 1) {
			target.budget().onCall();
		}
		Attempt attempt = new Attempt(this.chain, target.target(), this.attempts, this.targetAttempts, timeout,
				timeLeft, this.callId);
		attempt.startNanos(attemptStart());
		return attempt;
	}

	/**
	 * When an attempt starts: the run's own start for the first (a clock read saved on
	 * every call), now for any later one.
	 */
	private long attemptStart() {
		if (this.firstAttempt) {
			this.firstAttempt = false;
			return this.startNanos;
		}
		return this.context.now();
	}

	/** Monotonic time now. */
	long now() {
		return this.context.now();
	}

	/**
	 * The attempt answered: record the success and what its answer told.
	 * @param start when the attempt started
	 * @param end when it answered; for a stream, when its first element came
	 */
	void succeeded(TargetRuntime target, Attempt attempt, long start, long end) {
		long nanos = end - start;
		Answer answer = attempt.answer();
		// The call is served and the provider billed the answer: what follows is
		// bookkeeping, and none of it may fail the call. A step that throws is logged and
		// the next one still runs (observers are guarded on their own).
		try {
			target.succeeded(nanos, this.streaming, answer, this.chain, this.pool.name());
		}
		catch (RuntimeException | LinkageError | AssertionError ex) {
			this.context.bookkeeping().failed(AnswerBookkeeping.Step.TARGET, target, ex);
		}
		try {
			Usage usage = answer.usage();
			settleGrant(target, (usage != null) ? usage.totalTokens() : -1, answer.isEmpty() ? null : answer::header);
		}
		catch (RuntimeException | LinkageError | AssertionError ex) {
			this.context.bookkeeping().failed(AnswerBookkeeping.Step.POOLS, target, ex);
		}
		try {
			leavePace(false);
		}
		catch (RuntimeException | LinkageError | AssertionError ex) {
			this.context.bookkeeping().failed(AnswerBookkeeping.Step.PACE, target, ex);
		}
		CallObserver observer = this.context.observer();
		observer.onAttempt(this.chain, target.target(), Verdict.success(), nanos);
		if (!answer.isEmpty()) {
			observer.onAnswer(this.chain, target.target(), answer);
		}
		long callNanos = end - this.startNanos;
		observer.onServed(this.chain, target.target(), this.index, callNanos);
		observer.onCallEnded(this.chain, callNanos, this.backoffNanos);
	}

	/**
	 * A value or completion came first: record the success unless the attempt was
	 * settled.
	 */
	void answered(TargetRuntime target, Attempt attempt) {
		if (attempt.settle(Attempt.State.ANSWERED)) {
			succeeded(target, attempt, attempt.startNanos(), now());
		}
	}

	/** The subscriber cancelled first: neither success nor failure. */
	void cancelled(TargetRuntime target, Attempt attempt) {
		if (attempt.settle(Attempt.State.CANCELLED)) {
			abandoned(target);
		}
	}

	/**
	 * An error came first: classify, settle, decide. An error after the attempt was
	 * settled (by its cancellation) only passes through.
	 * @return what to do next
	 */
	Next failed(TargetRuntime target, Attempt attempt, Throwable error) {
		if (!attempt.settle(Attempt.State.ANSWERED)) {
			abandonPace();
			this.stopError = error;
			return Next.STOP;
		}
		return failed(target, error, now() - attempt.startNanos());
	}

	/** The attempt ended without a result (cancelled): neither success nor failure. */
	void abandoned(TargetRuntime target) {
		target.release();
		abandonPace();
	}

	/**
	 * The attempt failed: classify, settle the permit, decide.
	 * @return what to do next
	 */
	Next failed(TargetRuntime target, Throwable error, long nanos) {
		this.lastError = error;
		Verdict verdict = null;
		try {
			verdict = classify(target, error);
			if (verdict != null) {
				target.failed(nanos, verdict, error);
			}
		}
		finally {
			if (verdict == null) {
				// Not the provider's answer (or the classification itself failed): the
				// provider is not to be judged by it, so the permit goes back unrecorded.
				target.release();
			}
		}
		boolean throttled = verdict != null && verdict.outcome() == Outcome.THROTTLED;
		leavePace(throttled);
		if (verdict == null) {
			this.stopError = error;
			return Next.STOP;
		}
		// A failed request used no tokens the provider counts, unless it answered.
		settleGrant(target, (verdict.outcome() == Outcome.SUCCESS) ? -1 : 0, null);
		if (isTimeout(verdict)) {
			target.timeout(this.streaming).recordTimeout(nanos);
		}
		target.hold(verdict);
		if (throttled) {
			// Any refusal starts the scope's release pace over when its gate ends, and
			// says how long a refusal takes to come back.
			this.context.pools()
				.pace()
				.refused(target.target().quotaScope(), nanos, now(), target.gateNanos(this.context.clock().instant()));
		}
		if (verdict.providerWide()) {
			this.context.overloads()
				.mark(target.target().provider(), verdict.waitHint().orElse(null), verdict.errorType().orElse(null));
		}
		step(new ChainStep(target.name(), this.targetAttempts, verdict, null, Duration.ofNanos(nanos), null));
		verdicts()[this.index] = verdict;
		CallObserver observer = this.context.observer();
		observer.onAttempt(this.chain, target.target(), verdict, nanos);
		Outcome outcome = verdict.outcome();
		if (outcome == Outcome.SUCCESS) {
			// The provider answered and the caller's own code failed afterwards
			// (decoding, mapping): not the provider's fault, and no other target would do
			// better.
			this.stopError = error;
			return Next.STOP;
		}
		if (outcome.isCallersFault()) {
			observer.onRejected(this.chain, target.target(), verdict, this.context.now() - this.startNanos);
			this.stopError = new LlmRejectedException(this.chain, target.name(), verdict, error);
			return Next.STOP;
		}
		// A timeout already cost a whole attempt timeout: retrying the same slow target
		// would cost another while the next target may answer now.
		// A provider-wide overload is not retried on the same provider while another's
		// target waits.
		if (verdict.retry() && !(isTimeout(verdict) && this.index < this.targets.length - 1)
				&& !(verdict.providerWide() && otherProviderAhead())) {
			RetryResult result = retry(target, verdict);
			observer.onRetry(this.chain, target.target(), result);
			if (result == RetryResult.ATTEMPTED) {
				return Next.RETRY;
			}
		}
		if (verdict.failover()) {
			return Next.NEXT_TARGET;
		}
		this.stopError = new LlmRejectedException(this.chain, target.name(), verdict, error);
		return Next.STOP;
	}

	/**
	 * A stream failed after its first element reached the subscriber: record it as
	 * {@code STREAM_INTERRUPTED} (a refusal stays a refusal), never restart it.
	 * @param firstTokenNanos when the first element came, from the attempt's start
	 * @return the error for the subscriber
	 */
	Throwable interrupted(TargetRuntime target, Throwable error, long received, long firstTokenNanos, long nanos) {
		this.lastError = error;
		leavePace(false);
		Verdict cause = null;
		Verdict recorded = null;
		try {
			cause = classify(target, error);
			if (cause == null || cause.outcome() == Outcome.SUCCESS) {
				// The provider streamed; the subscriber's own code failed.
				target.streamed(firstTokenNanos);
				recorded = Verdict.success();
			}
			else {
				recorded = cause.outcome().isCallersFault() ? cause : Verdict.of(Outcome.STREAM_INTERRUPTED,
						cause.waitHint().orElse(null), cause.errorType().orElse(null));
				target.failed(nanos, recorded, error);
			}
		}
		finally {
			if (recorded == null) {
				target.release();
			}
		}
		if (cause == null || cause.outcome() == Outcome.SUCCESS) {
			return error;
		}
		target.hold(cause);
		if (cause.providerWide()) {
			this.context.overloads()
				.mark(target.target().provider(), cause.waitHint().orElse(null), cause.errorType().orElse(null));
		}
		CallObserver observer = this.context.observer();
		observer.onAttempt(this.chain, target.target(), recorded, nanos);
		if (cause.outcome().isCallersFault()) {
			observer.onRejected(this.chain, target.target(), cause, this.context.now() - this.startNanos);
			return new LlmRejectedException(this.chain, target.name(), cause, error);
		}
		step(new ChainStep(target.name(), this.targetAttempts, recorded, null, Duration.ofNanos(nanos), null));
		return new LlmStreamInterruptedException(this.chain, target.name(), received, recorded, cause, error);
	}

	private static boolean isTimeout(Verdict verdict) {
		return "timeout".equals(verdict.errorType().orElse(null));
	}

	private RetryResult retry(TargetRuntime target, Verdict verdict) {
		if (this.targetAttempts >= this.context.retry().maxAttempts()) {
			return RetryResult.MAX_ATTEMPTS;
		}
		long delay = backoffNanos(this.targetAttempts - 1, verdict);
		// A retry must fit before the deadline; after a timeout, a whole new attempt
		// must, or the retry would only time out again at the deadline.
		long needed = delay + (isTimeout(verdict) ? target.timeout(this.streaming).current().toNanos() : 0);
		if (this.context.now() + needed >= this.deadlineNanos) {
			return RetryResult.DEADLINE;
		}
		if (!target.budget().tryRetry()) {
			return RetryResult.BUDGET_EXHAUSTED;
		}
		this.delayNanos = delay;
		return RetryResult.ATTEMPTED;
	}

	/**
	 * The backoff before retry {@code n}: the provider's hint when it gave one, else full
	 * jitter.
	 */
	private long backoffNanos(int retry, Verdict verdict) {
		Duration hint = verdict.waitHint().orElse(null);
		if (hint != null) {
			return Math.min(hint.toNanos(), this.context.retry().backoffMax().toNanos());
		}
		return this.context.backoff().delay(retry).toNanos();
	}

	/**
	 * What the error says about the provider.
	 * @return the verdict, or {@code null} when the error is not the provider's answer
	 * (the caller's own exception, under {@link UnknownExceptions#CALLER})
	 */
	private @Nullable Verdict classify(TargetRuntime target, Throwable error) {
		ProviderResponse response = this.context.extractors().extract(error);
		if (response == null) {
			String simpleName = error.getClass().getSimpleName();
			String type = simpleName.isEmpty() ? "Throwable" : simpleName;
			this.context.unclassified().unclassified(target.target().provider(), 0, type);
			return (this.context.unknownExceptions() == UnknownExceptions.PROVIDER)
					? Verdict.of(Outcome.AVAILABILITY, null, type) : null;
		}
		return target.classifier().classify(response);
	}

	/** The chain is exhausted: say why and when to come back. */
	LlmUnavailableException unavailable(@Nullable String reason) {
		List<ChainStep> all = (this.steps != null) ? this.steps : List.of();
		boolean allThrottled = !all.isEmpty();
		for (ChainStep step : all) {
			if (!step.isThrottle()) {
				allThrottled = false;
				break;
			}
		}
		Instant now = this.context.clock().instant();
		Instant earliest = null;
		for (int i = 0; i < this.targets.length; i++) {
			Instant at = this.targets[i].availableAt(now, (this.lastVerdicts != null) ? this.lastVerdicts[i] : null,
					this.pool);
			if (earliest == null || at.isBefore(earliest)) {
				earliest = at;
			}
		}
		LlmUnavailableException exception = new LlmUnavailableException(this.chain, all, allThrottled,
				(earliest != null) ? earliest : now, reason, this.lastError);
		long callNanos = this.context.now() - this.startNanos;
		CallObserver observer = this.context.observer();
		observer.onUnavailable(this.chain, exception, callNanos);
		observer.onCallEnded(this.chain, callNanos, this.backoffNanos);
		this.exhaustion = exception;
		return exception;
	}

	/**
	 * Settle the attempt's draw on its pool: the tokens the answer used, and the scope's
	 * capacity its headers state.
	 * @param tokensUsed the tokens, or a negative number when not known
	 * @param header the answer's headers, or {@code null}
	 */
	private void settleGrant(TargetRuntime target, long tokensUsed,
			@Nullable Function<String, @Nullable String> header) {
		Grant grant = this.grant;
		ScopePartition partition = target.partition();
		this.lastGrant = grant;
		if (grant != null && partition != null) {
			this.grant = null;
			this.context.pools().answered(partition, grant, tokensUsed, header);
		}
	}

	/**
	 * Whether the error is this call's own {@link #unavailable}: not a rejection, not the
	 * caller's exception (which may be another call's {@link LlmUnavailableException}).
	 */
	boolean isExhaustion(Throwable error) {
		return error == this.exhaustion;
	}

	/**
	 * No target could serve: ask the fallback for a degraded answer. Nothing here touches
	 * a target: the targets' verdicts were recorded when they were given.
	 * @return the fallback's answer
	 * @throws Exception what the fallback threw (or a {@link NullPointerException} for a
	 * {@code null} answer), the unavailable exception added as suppressed
	 */
	<T> T degrade(LlmUnavailableException unavailable, LlmFallback<? extends T> fallback) throws Exception {
		CallObserver observer = this.context.observer();
		T answer;
		try {
			answer = fallback.answer(new Degradation(this.chain, unavailable));
			if (answer == null) {
				throw new NullPointerException("The fallback of chain '" + this.chain + "' returned null");
			}
		}
		catch (Throwable ex) {
			if (ex instanceof VirtualMachineError fatal) {
				throw fatal;
			}
			// A fallback that declines rethrows the exception it was given.
			if (ex != unavailable) {
				ex.addSuppressed(unavailable);
			}
			observer.onDegraded(this.chain, unavailable, ex, this.context.now() - this.startNanos);
			throw ex;
		}
		observer.onDegraded(this.chain, unavailable, null, this.context.now() - this.startNanos);
		return answer;
	}

	private void skip(TargetRuntime target, Skip why, @Nullable Instant until) {
		step(new ChainStep(target.name(), 0, null, why, Duration.ZERO, until));
	}

	private void step(ChainStep step) {
		if (this.steps == null) {
			this.steps = new ArrayList<>(4);
		}
		this.steps.add(step);
	}

	private @Nullable Verdict[] verdicts() {
		if (this.lastVerdicts == null) {
			this.lastVerdicts = new Verdict[this.targets.length];
		}
		return this.lastVerdicts;
	}

	/**
	 * A call function threw instead of returning its publisher. A fatal JVM error (out of
	 * memory, stack overflow) is not caught: give the permit back and let it go. Anything
	 * else is the attempt's error, settled like any other.
	 */
	static Throwable thrown(TargetRuntime target, Throwable error) {
		if (error instanceof VirtualMachineError fatal) {
			target.release();
			throw fatal;
		}
		return error;
	}

	/**
	 * An error for a blocking caller: unchecked ones as they are, checked ones wrapped.
	 */
	static RuntimeException unchecked(Throwable error) {
		if (error instanceof RuntimeException runtime) {
			return runtime;
		}
		if (error instanceof Error fatal) {
			throw fatal;
		}
		return new CompletionException(error);
	}

}
