package io.github.llmresilience.execute;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.execute.CallObserver.RetryResult;
import io.github.llmresilience.execute.ChainStep.Skip;
import io.github.llmresilience.pool.Grant;
import io.github.llmresilience.pool.PoolSettings;
import io.github.llmresilience.pool.ScopePartition;
import org.jspecify.annotations.Nullable;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

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
	 * a provider is marked overloaded, then a copy, its untried part reordered.
	 */
	private TargetRuntime[] targets;

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

	private final Attempt.CallId callId;

	private final boolean streaming;

	private int index = -1;

	private int targetAttempts;

	private int attempts;

	/** Every step of the call so far: skips and failed attempts, in order. */
	private @Nullable List<ChainStep> steps;

	private @Nullable Throwable lastError;

	private long delayNanos;

	/**
	 * Every backoff of this call so far: a field, so a call without retries pays nothing.
	 */
	private long backoffNanos;

	private @Nullable Throwable stopError;

	/** The call's traffic class. */
	private final PoolSettings pool;

	/**
	 * The current attempt's draw on its target's pool (quota pools on): settled with the
	 * attempt, drawn again by a retry of the same target.
	 */
	private @Nullable Grant grant;

	/** The call's wait for a release, from its first wait on; {@code null} before. */
	private @Nullable CallWait wait;

	/** The exception that ended the call when no target could serve, once it has. */
	private @Nullable LlmUnavailableException exhaustion;

	/**
	 * The shared observers, and the call's trace after them when it has one (told also
	 * when an attempt starts and when the call ends).
	 */
	private final CallObservers observer;

	ChainRun(CallContext context, String chain, TargetRuntime[] targets, CallOptions options) {
		this(context, chain, targets, options, false, Context.empty());
	}

	/**
	 * @param streaming whether attempts are streams: timed to their first element, their
	 * latency recorded as time to first token
	 * @param reactor the subscriber's Reactor context, where a trace finds its parent
	 */
	ChainRun(CallContext context, String chain, TargetRuntime[] targets, CallOptions options, boolean streaming,
			ContextView reactor) {
		this(context, chain, targets, options, streaming,
				context.observer().traced(context.tracing().start(chain, reactor)));
	}

	/** A walk that tells {@code observer}: one of a hedged stream's two walks. */
	ChainRun(CallContext context, String chain, TargetRuntime[] targets, CallOptions options, boolean streaming,
			CallObservers observer) {
		this.streaming = streaming;
		this.context = context;
		this.chain = chain;
		this.targets = targets;
		this.startNanos = context.now();
		this.pool = context.pool(options.pool());
		this.waitExtendsDeadline = options.deadline() == null;
		Duration deadline = (options.deadline() != null) ? options.deadline() : context.callTimeout();
		this.deadlineNanos = this.startNanos + deadline.toNanos();
		this.callId = new Attempt.CallId(options.idempotencyKey());
		this.observer = observer;
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
				this.targets = OverloadOrder.preferOthers(this.targets, this.index, this.context.overloads(),
						this.context.clock().millis());
			}
			TargetRuntime target = this.targets[this.index];
			ChainStep skip = target.admit(this.pool.name());
			if (skip == null) {
				skip = draw(target);
			}
			if (skip == null && this.wait != null) {
				// Served by another target than the one a wait reserved a place at.
				this.wait.served();
			}
			if (skip != null) {
				step(skip);
				this.observer.onSkipped(this.chain, target.target(), skip.skipped());
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
		CallWait wait = this.wait;
		Grant grant = (wait != null) ? wait.draw(target, partition) : target.draw(this.pool);
		if (grant != null) {
			this.grant = grant;
			return null;
		}
		target.release();
		long nanos = (wait != null) ? wait.drawNanos(target) : target.shareNanos(this.pool);
		return new ChainStep(target.name(), 0, null, Skip.POOL_EXHAUSTED, Duration.ZERO,
				this.context.clock().instant().plusNanos(Math.max(nanos, CallWait.MIN_WAIT_NANOS)));
	}

	/**
	 * The chain is exhausted: wait for a release when only rate limits held the call
	 * ({@link CallWait#next}), which takes the call's first wait to make.
	 * @return how long to wait before walking the chain again ({@link #afterWait()}), or
	 * -1 when the call ends now
	 */
	long releaseWait() {
		CallWait wait = this.wait;
		if (wait == null) {
			if (this.pool.maxWait().isZero() || !CallWait.onlyWaitable(this.steps, 0)) {
				return -1;
			}
			wait = this.context.waitFor(this.pool);
			this.wait = wait;
		}
		long nanos = wait.next(this.targets, this.steps, waitDeadline());
		if (nanos < 0) {
			return -1;
		}
		if (this.waitExtendsDeadline) {
			this.deadlineNanos += nanos;
		}
		this.observer.onPoolWait(this.chain, this.pool.name(), nanos);
		return nanos;
	}

	/**
	 * The deadline a wait must keep: none when waits move the call's own; else early
	 * enough that an attempt after it has the time attempts take (the 99th percentile of
	 * the quickest target of the chain; nothing before one is measured): a call released
	 * just before its deadline would only time out at it.
	 */
	private long waitDeadline() {
		if (this.waitExtendsDeadline) {
			return Long.MAX_VALUE;
		}
		long attempt = Long.MAX_VALUE;
		for (TargetRuntime target : this.targets) {
			attempt = Math.min(attempt, target.timeout(this.streaming).takesNanos());
		}
		return this.deadlineNanos - attempt;
	}

	/**
	 * The wait of {@link #releaseWait()} is over: walk the chain again from its first
	 * target.
	 * @return the target to attempt, or {@code null} when the chain is exhausted again or
	 * the call is to look again shortly
	 */
	@Nullable TargetRuntime afterWait() {
		CallWait wait = this.wait;
		if (wait != null && !wait.walkAgain((this.steps != null) ? this.steps.size() : 0, waitDeadline())) {
			return null;
		}
		this.index = -1;
		return nextTarget();
	}

	/** The call was cancelled while it waited: give its places back. */
	void cancelWait() {
		if (this.wait != null) {
			this.wait.cancel();
		}
	}

	/** The attempt after a wait ended without an answer. */
	private void abandonWait() {
		if (this.wait != null) {
			this.wait.abandoned();
		}
	}

	/** The attempt after a wait was settled; {@code throttled} when limited again. */
	private void settleWait(boolean throttled) {
		if (this.wait != null) {
			this.wait.settled(throttled);
		}
	}

	/**
	 * The backoff of {@link Next#RETRY} has passed: take the breaker permit for the retry
	 * (the breaker may have opened meanwhile, on other calls' failures).
	 * @return the target to attempt next (the same one, or the next usable one when the
	 * breaker refused the retry), or {@code null} when the chain is exhausted
	 */
	@Nullable TargetRuntime afterBackoff(TargetRuntime target) {
		this.backoffNanos += this.delayNanos;
		this.observer.onBackoff(this.chain, target.target(), this.delayNanos);
		ChainStep skip = target.acquire(this.pool.name());
		if (skip == null) {
			Grant last = this.grant;
			if (last != null && target.partition() != null) {
				// The settled draw of this target's last attempt: the retry draws again.
				this.grant = last.retry();
			}
			return target;
		}
		step(skip);
		this.observer.onSkipped(this.chain, target.target(), skip.skipped());
		return nextTarget();
	}

	/**
	 * Begin an attempt on a target whose breaker permit is held.
	 * @return the attempt, or {@code null} when the deadline has passed (the permit is
	 * given back)
	 */
	@Nullable Attempt begin(TargetRuntime target) {
		Duration timeout = target.timeout(this.streaming).current();
		// The first attempt starts with the run (a clock read saved on every call),
		// unless the call waited for a release first: the wait is not the attempt's.
		long start = (this.attempts == 0 && this.wait == null) ? this.startNanos : this.context.now();
		long left = this.deadlineNanos - start;
		if (left <= 0) {
			target.release();
			abandonWait();
			step(new ChainStep(target.name(), 0, null, Skip.DEADLINE, Duration.ZERO, null));
			return null;
		}
		if (left < timeout.toNanos()) {
			timeout = Duration.ofNanos(left);
		}
		this.attempts++;
		this.targetAttempts++;
		if (this.targetAttempts == 1) {
			target.budget().onCall(start);
		}
		Attempt attempt = new Attempt(this.chain, target.target(), this.attempts, this.targetAttempts, timeout, left,
				this.callId);
		attempt.startNanos(start);
		this.observer.attemptStarted(attempt);
		return attempt;
	}

	String chain() {
		return this.chain;
	}

	/** How long the call has taken so far. */
	long elapsedNanos() {
		return this.context.now() - this.startNanos;
	}

	CallObserver observer() {
		return this.observer;
	}

	/** Whether the call has a trace to be told when it ends. */
	boolean traced() {
		return this.observer.traced();
	}

	/** The call ended (see {@link CallTrace#ended}). */
	void ended(@Nullable Throwable error) {
		this.observer.ended(error);
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
		target.succeeded(nanos, this.streaming, answer, this.chain, this.pool.name(), this.grant,
				this.context.bookkeeping());
		try {
			settleWait(false);
		}
		catch (RuntimeException | LinkageError | AssertionError ex) {
			this.context.bookkeeping().failed(AnswerBookkeeping.Step.PACE, target, ex);
		}
		CallObserver observer = this.observer;
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
			abandonWait();
			this.stopError = error;
			return Next.STOP;
		}
		return failed(target, error, now() - attempt.startNanos());
	}

	/** The attempt ended without a result (cancelled): neither success nor failure. */
	void abandoned(TargetRuntime target) {
		target.release();
		abandonWait();
	}

	/**
	 * The attempt failed: classify, settle the permit, decide.
	 * @return what to do next
	 */
	Next failed(TargetRuntime target, Throwable error, long nanos) {
		this.lastError = error;
		Verdict verdict = classifyOrRelease(target, error);
		settleWait(verdict != null && verdict.outcome() == Outcome.THROTTLED);
		if (verdict == null) {
			// Not the provider's answer: the provider is not to be judged by it, so the
			// permit went back unrecorded.
			this.stopError = error;
			return Next.STOP;
		}
		// A failed request used no tokens the provider counts, unless it answered.
		settleGrant(target, (verdict.outcome() == Outcome.SUCCESS) ? -1 : 0, null);
		target.record(nanos, verdict, verdict, error, false, now());
		step(new ChainStep(target.name(), this.targetAttempts, verdict, null, Duration.ofNanos(nanos), null));
		CallObserver observer = this.observer;
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
		if (verdict.retry() && !(TargetRuntime.isTimeout(verdict) && this.index < this.targets.length - 1)
				&& !(verdict.providerWide() && OverloadOrder.otherAhead(this.targets, this.index,
						this.context.overloads(), this.context.clock().millis()))) {
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
		settleWait(false);
		Verdict cause;
		try {
			cause = this.context.classify(target, error);
		}
		catch (RuntimeException | Error ex) {
			target.release();
			throw ex;
		}
		if (cause == null || cause.outcome() == Outcome.SUCCESS) {
			// The provider streamed; the subscriber's own code failed.
			target.streamed(firstTokenNanos);
			return error;
		}
		Verdict recorded = cause.outcome().isCallersFault() ? cause
				: Verdict.of(Outcome.STREAM_INTERRUPTED, cause.waitHint().orElse(null), cause.errorType().orElse(null));
		target.record(nanos, recorded, cause, error, true, now());
		CallObserver observer = this.observer;
		observer.onAttempt(this.chain, target.target(), recorded, nanos);
		if (cause.outcome().isCallersFault()) {
			observer.onRejected(this.chain, target.target(), cause, this.context.now() - this.startNanos);
			return new LlmRejectedException(this.chain, target.name(), cause, error);
		}
		step(new ChainStep(target.name(), this.targetAttempts, recorded, null, Duration.ofNanos(nanos), null));
		return new LlmStreamInterruptedException(this.chain, target.name(), received, recorded, cause, error);
	}

	/**
	 * Classify the error; when it is not the provider's answer, or classifying it failed,
	 * give the permit back unrecorded, so that no failing callback wedges a breaker.
	 */
	private @Nullable Verdict classifyOrRelease(TargetRuntime target, Throwable error) {
		Verdict verdict;
		try {
			verdict = this.context.classify(target, error);
		}
		catch (RuntimeException | Error ex) {
			target.release();
			throw ex;
		}
		if (verdict == null) {
			target.release();
		}
		return verdict;
	}

	private RetryResult retry(TargetRuntime target, Verdict verdict) {
		if (this.targetAttempts >= this.context.retry().maxAttempts()) {
			return RetryResult.MAX_ATTEMPTS;
		}
		long delay = backoffNanos(this.targetAttempts - 1, verdict);
		// A retry must fit before the deadline; after a timeout, a whole new attempt
		// must, or the retry would only time out again at the deadline.
		long needed = delay
				+ (TargetRuntime.isTimeout(verdict) ? target.timeout(this.streaming).current().toNanos() : 0);
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

	/** The chain is exhausted: say why and when to come back. */
	LlmUnavailableException unavailable(@Nullable String reason) {
		List<ChainStep> all = (this.steps != null) ? this.steps : List.of();
		boolean allThrottled = CallWait.onlyThrottled(all, 0);
		Instant now = this.context.clock().instant();
		Instant earliest = null;
		for (int i = 0; i < this.targets.length; i++) {
			Instant at = this.targets[i].availableAt(now, ChainStep.lastVerdict(all, this.targets[i].name()),
					this.pool);
			if (earliest == null || at.isBefore(earliest)) {
				earliest = at;
			}
		}
		LlmUnavailableException exception = new LlmUnavailableException(this.chain, all, allThrottled,
				(earliest != null) ? earliest : now, reason, this.lastError);
		long callNanos = this.context.now() - this.startNanos;
		CallObserver observer = this.observer;
		observer.onUnavailable(this.chain, exception, callNanos);
		observer.onCallEnded(this.chain, callNanos, this.backoffNanos);
		this.exhaustion = exception;
		return exception;
	}

	/**
	 * Settle the attempt's draw on its pool: the tokens the answer used, and the scope's
	 * capacity its headers state. The draw stays, settled, for a retry to draw again.
	 * @param tokensUsed the tokens, or a negative number when not known
	 * @param header the answer's headers, or {@code null}
	 */
	private void settleGrant(TargetRuntime target, long tokensUsed,
			@Nullable Function<String, @Nullable String> header) {
		if (this.grant != null) {
			target.answered(this.grant, tokensUsed, header);
		}
	}

	/**
	 * Whether the error is this call's own {@link #unavailable}: not a rejection, not the
	 * caller's exception (which may be another call's {@link LlmUnavailableException}).
	 */
	boolean isExhaustion(Throwable error) {
		return error == this.exhaustion;
	}

	private void step(ChainStep step) {
		if (this.steps == null) {
			this.steps = new ArrayList<>(4);
		}
		this.steps.add(step);
	}

}
