package io.github.llmresilience.execute;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.execute.CallObserver.RetryResult;
import io.github.llmresilience.execute.ChainStep.Skip;

/**
 * The state of one logical call as it walks its chain: which target is next, what each
 * attempt's verdict was, and what to do after a failure. Both the reactive and the
 * blocking driver use it; it is confined to one call, one step at a time.
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

	private final LlmResilience engine;

	private final String chain;

	private final TargetRuntime[] targets;

	private final long startNanos;

	private final long deadlineNanos;

	private final Attempt.CallId callId;

	/** Whether the next attempt is the call's first, whose start is the run's start. */
	private boolean firstAttempt = true;

	private final boolean streaming;

	private int index = -1;

	private int targetAttempts;

	private int attempts;

	private List<ChainStep> steps;

	private Verdict[] lastVerdicts;

	private Throwable lastError;

	private long delayNanos;

	private RuntimeException stopError;

	ChainRun(LlmResilience engine, String chain, TargetRuntime[] targets, CallOptions options) {
		this(engine, chain, targets, options, false);
	}

	/**
	 * @param streaming whether attempts are streams: timed to their first element, their
	 * latency recorded as time to first token
	 */
	ChainRun(LlmResilience engine, String chain, TargetRuntime[] targets, CallOptions options, boolean streaming) {
		this.streaming = streaming;
		this.engine = engine;
		this.chain = chain;
		this.targets = targets;
		this.startNanos = engine.nanoTime();
		this.deadlineNanos = (options.deadline() != null) ? this.startNanos + options.deadline().toNanos()
				: Long.MAX_VALUE;
		this.callId = new Attempt.CallId(options.idempotencyKey());
	}

	String chain() {
		return this.chain;
	}

	long delayNanos() {
		return this.delayNanos;
	}

	RuntimeException stopError() {
		return this.stopError;
	}

	/**
	 * The next usable target, with a breaker permit taken; targets whose account, quota
	 * scope or breaker refuse are skipped without a request.
	 * @return the target, or {@code null} when the chain is exhausted
	 */
	TargetRuntime nextTarget() {
		while (++this.index < this.targets.length) {
			TargetRuntime target = this.targets[this.index];
			if (!this.engine.accounts().isUsable(target.account())) {
				boolean locked = target.account().lockedUntil().toEpochMilli() > this.engine.clock().millis();
				skip(target, locked ? Skip.ACCOUNT_LOCKED : Skip.ACCOUNT_PARKED, target.account().availableAt());
				continue;
			}
			if (!this.engine.gate().isOpen(target.scope())) {
				skip(target, Skip.SCOPE_GATED, target.scope().closedUntil());
				continue;
			}
			if (!target.breaker().tryAcquire()) {
				skip(target, Skip.BREAKER_OPEN, target.breaker().availableAt());
				continue;
			}
			this.targetAttempts = 0;
			return target;
		}
		return null;
	}

	/** The breaker refused a retry of the current target: record it and move on. */
	TargetRuntime breakerRefusedRetry(TargetRuntime target) {
		skip(target, Skip.BREAKER_OPEN, target.breaker().availableAt());
		return nextTarget();
	}

	/**
	 * Begin an attempt on a target whose breaker permit is held.
	 * @return the attempt, or {@code null} when the deadline has passed (the permit is
	 * given back)
	 */
	Attempt begin(TargetRuntime target) {
		Duration timeout = this.streaming ? target.firstTokenTimeout().current() : target.attemptTimeout().current();
		Duration timeLeft = null;
		if (this.deadlineNanos != Long.MAX_VALUE) {
			long left = this.deadlineNanos - this.engine.nanoTime();
			if (left <= 0) {
				target.breaker().release();
				skip(target, Skip.DEADLINE, null);
				return null;
			}
			timeLeft = Duration.ofNanos(left);
			if (timeLeft.compareTo(timeout) < 0) {
				timeout = timeLeft;
			}
		}
		this.attempts++;
		this.targetAttempts++;
		if (this.targetAttempts == 1) {
			target.budget().onCall();
		}
		return new Attempt(this.chain, target.target(), this.attempts, this.targetAttempts, timeout, timeLeft,
				this.callId);
	}

	/**
	 * When an attempt starts: the run's own start for the first (a clock read saved on
	 * every call), now for any later one.
	 */
	long attemptStart() {
		if (this.firstAttempt) {
			this.firstAttempt = false;
			return this.startNanos;
		}
		return this.engine.nanoTime();
	}

	/**
	 * The attempt answered: record the success.
	 * @param start when the attempt started
	 * @param end when it answered; for a stream, when its first element came
	 */
	void succeeded(TargetRuntime target, long start, long end) {
		long nanos = end - start;
		(this.streaming ? target.firstTokenTimeout() : target.attemptTimeout()).record(nanos);
		target.breaker().onSuccess(nanos);
		this.engine.accounts().success(target.account());
		CallObserver observer = this.engine.observer();
		observer.onAttempt(this.chain, target.target(), Verdict.success(), nanos);
		observer.onServed(this.chain, target.target(), this.index, end - this.startNanos);
	}

	/** The attempt ended without a result (cancelled): neither success nor failure. */
	void abandoned(TargetRuntime target) {
		target.breaker().release();
	}

	/**
	 * The attempt failed: classify, record, decide.
	 * @return what to do next
	 */
	Next failed(TargetRuntime target, Throwable error, long nanos) {
		Verdict verdict = classify(target, error);
		this.engine.record(target, verdict, error, nanos);
		step(new ChainStep(target.name(), this.targetAttempts, verdict, null, Duration.ofNanos(nanos), null));
		verdicts()[this.index] = verdict;
		this.lastError = error;
		CallObserver observer = this.engine.observer();
		observer.onAttempt(this.chain, target.target(), verdict, nanos);
		Outcome outcome = verdict.outcome();
		if (outcome == Outcome.SUCCESS) {
			// The provider answered and the caller's own code failed afterwards (decoding,
			// mapping): not the provider's fault, and no other target would do better.
			this.stopError = (error instanceof RuntimeException runtime) ? runtime
					: new java.util.concurrent.CompletionException(error);
			return Next.STOP;
		}
		if (outcome.isCallersFault()) {
			observer.onRejected(this.chain, target.target(), verdict, this.engine.nanoTime() - this.startNanos);
			this.stopError = new LlmRejectedException(this.chain, target.name(), verdict, error);
			return Next.STOP;
		}
		// A timeout already cost a whole attempt timeout: retrying the same slow target
		// would cost another while the next target may answer now.
		if (verdict.retry() && !(isTimeout(verdict) && this.index < this.targets.length - 1)) {
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
	 * @return the error for the subscriber
	 */
	RuntimeException interrupted(TargetRuntime target, Throwable error, long received, long nanos) {
		Verdict cause = classify(target, error);
		this.lastError = error;
		CallObserver observer = this.engine.observer();
		if (cause.outcome() == Outcome.SUCCESS) {
			// The provider streamed; the subscriber's own code failed.
			target.breaker().onSuccess(nanos);
			return (error instanceof RuntimeException runtime) ? runtime
					: new java.util.concurrent.CompletionException(error);
		}
		if (cause.outcome().isCallersFault()) {
			this.engine.record(target, cause, error, nanos);
			observer.onAttempt(this.chain, target.target(), cause, nanos);
			observer.onRejected(this.chain, target.target(), cause, this.engine.nanoTime() - this.startNanos);
			return new LlmRejectedException(this.chain, target.name(), cause, error);
		}
		Verdict interrupted = Verdict.of(Outcome.STREAM_INTERRUPTED, cause.waitHint().orElse(null),
				cause.errorType().orElse(null));
		target.breaker().onFailure(nanos, interrupted, error);
		this.engine.sideEffects(target, cause);
		step(new ChainStep(target.name(), this.targetAttempts, interrupted, null, Duration.ofNanos(nanos), null));
		observer.onAttempt(this.chain, target.target(), interrupted, nanos);
		return new LlmStreamInterruptedException(this.chain, target.name(), received, interrupted, cause, error);
	}

	private static boolean isTimeout(Verdict verdict) {
		return "timeout".equals(verdict.errorType().orElse(null));
	}

	private RetryResult retry(TargetRuntime target, Verdict verdict) {
		if (this.targetAttempts >= this.engine.retrySettings().maxAttempts()) {
			return RetryResult.MAX_ATTEMPTS;
		}
		long delay = this.engine.backoffNanos(this.targetAttempts - 1, verdict);
		if (this.deadlineNanos != Long.MAX_VALUE && this.engine.nanoTime() + delay >= this.deadlineNanos) {
			return RetryResult.DEADLINE;
		}
		if (!target.budget().tryRetry()) {
			return RetryResult.BUDGET_EXHAUSTED;
		}
		this.delayNanos = delay;
		return RetryResult.ATTEMPTED;
	}

	private Verdict classify(TargetRuntime target, Throwable error) {
		ProviderResponse response = this.engine.extractors().extract(error);
		if (response == null) {
			String type = error.getClass().getSimpleName();
			this.engine.unclassified().unclassified(target.target().provider(), 0, type);
			return Verdict.of(Outcome.AVAILABILITY, null, type);
		}
		return target.classifier().classify(response);
	}

	/** The chain is exhausted: say why and when to come back. */
	LlmUnavailableException unavailable(String reason) {
		List<ChainStep> all = (this.steps != null) ? this.steps : List.of();
		boolean allThrottled = !all.isEmpty();
		for (ChainStep step : all) {
			if (!step.isThrottle()) {
				allThrottled = false;
				break;
			}
		}
		Instant now = this.engine.clock().instant();
		Instant earliest = null;
		for (int i = 0; i < this.targets.length; i++) {
			Instant at = this.engine.availableAt(this.targets[i], now,
					(this.lastVerdicts != null) ? this.lastVerdicts[i] : null);
			if (earliest == null || at.isBefore(earliest)) {
				earliest = at;
			}
		}
		LlmUnavailableException exception = new LlmUnavailableException(this.chain, all, allThrottled,
				(earliest != null) ? earliest : now, reason, this.lastError);
		this.engine.observer().onUnavailable(this.chain, exception, this.engine.nanoTime() - this.startNanos);
		return exception;
	}

	private void skip(TargetRuntime target, Skip why, Instant until) {
		step(new ChainStep(target.name(), 0, null, why, Duration.ZERO, until));
	}

	private void step(ChainStep step) {
		if (this.steps == null) {
			this.steps = new ArrayList<>(4);
		}
		this.steps.add(step);
	}

	private Verdict[] verdicts() {
		if (this.lastVerdicts == null) {
			this.lastVerdicts = new Verdict[this.targets.length];
		}
		return this.lastVerdicts;
	}

}
