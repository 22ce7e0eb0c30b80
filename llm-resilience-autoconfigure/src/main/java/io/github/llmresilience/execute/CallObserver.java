package io.github.llmresilience.execute;

import java.util.List;

import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.target.Target;
import org.jspecify.annotations.Nullable;

/**
 * Told what each call does, for metrics. Methods are called on the calling thread and
 * must be quick; the default does nothing.
 */
public interface CallObserver {

	CallObserver NONE = new CallObserver() {
	};

	/** Why a retry was or was not taken. */
	enum RetryResult {

		/** The retry was made. */
		ATTEMPTED,

		/** The retry budget was spent. */
		BUDGET_EXHAUSTED,

		/** The backoff would have ended after the call's deadline. */
		DEADLINE,

		/** The target's attempts were used up. */
		MAX_ATTEMPTS

	}

	/**
	 * What became of a hedge: a stream's second walk, sent when its first element was
	 * late.
	 */
	enum HedgeResult {

		/** The hedge was sent. */
		SENT,

		/** Its first element came first: the call's walk was cancelled. */
		WON,

		/**
		 * The call's walk answered first (or the caller cancelled): the hedge was
		 * cancelled.
		 */
		CANCELLED

	}

	/** One attempt ended with this verdict after this many nanoseconds. */
	default void onAttempt(String chain, Target target, Verdict verdict, long nanos) {
	}

	/**
	 * A successful attempt's call function handed over the provider's answer
	 * ({@link Attempt#answered}, {@link Attempt#usage}): its headers and the tokens used.
	 * Called after {@link #onAttempt} with the success, only when something was handed
	 * over.
	 */
	default void onAnswer(String chain, Target target, Answer answer) {
	}

	/** A retry decision for a retryable verdict. */
	default void onRetry(String chain, Target target, RetryResult result) {
	}

	/** Time spent waiting before a retry. */
	default void onBackoff(String chain, Target target, long nanos) {
	}

	/**
	 * The call was served by the target at this position of the chain (0 is the first).
	 */
	default void onServed(String chain, Target target, int position, long nanos) {
	}

	/** No target could serve the call. */
	default void onUnavailable(String chain, LlmUnavailableException exception, long nanos) {
	}

	/**
	 * The call ended, served or unavailable: it took {@code nanos} in all (for a stream,
	 * up to its first element), {@code backoffNanos} of them waiting before retries (0
	 * when it made none). Called after {@link #onServed} or {@link #onUnavailable}.
	 */
	default void onCallEnded(String chain, long nanos, long backoffNanos) {
	}

	/**
	 * No target could serve the call and its {@link LlmFallback} was asked for a degraded
	 * answer: it answered ({@code failure} is {@code null}) or threw {@code failure}.
	 * Called after {@link #onUnavailable}; {@code nanos} is the call's whole time, the
	 * fallback's included.
	 */
	default void onDegraded(String chain, LlmUnavailableException unavailable, @Nullable Throwable failure,
			long nanos) {
	}

	/** The provider rejected the call (a request error or a refusal). */
	default void onRejected(String chain, Target target, Verdict verdict, long nanos) {
	}

	/**
	 * The target was passed over without a request: its account, quota scope or breaker
	 * refused the call (a fail-fast).
	 */
	default void onSkipped(String chain, Target target, ChainStep.Skip why) {
	}

	/**
	 * Every target of the chain was only rate limited, and the call waits this long for
	 * the earliest release (its pool's share to refill, or a scope's gate to end) instead
	 * of failing.
	 * @param pool the call's pool
	 */
	default void onPoolWait(String chain, String pool, long nanos) {
	}

	/**
	 * A stream's first element was late and a hedge went to {@code target}, in another
	 * failure domain ({@link HedgeResult#SENT}); then the first element came from it
	 * ({@link HedgeResult#WON}) or from the call's walk ({@link HedgeResult#CANCELLED}).
	 * Not a call of its own: the call is told once how it ended, by whichever walk served
	 * it.
	 */
	default void onHedge(String chain, Target target, HedgeResult result) {
	}

	/**
	 * Every observer, in order, as one: each is told in turn, and one that throws is
	 * logged while the next is still told.
	 */
	static CallObserver of(List<CallObserver> observers) {
		return CallObservers.of(observers);
	}

}
