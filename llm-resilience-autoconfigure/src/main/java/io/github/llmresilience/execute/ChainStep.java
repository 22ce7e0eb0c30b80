package io.github.llmresilience.execute;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.Verdict;
import org.jspecify.annotations.Nullable;

/**
 * What happened at one target during a call: an attempt and its verdict, or a skip and
 * why.
 *
 * @param target the target's name
 * @param attempt the attempt's number on the target (0 for a skip)
 * @param verdict the attempt's verdict, or {@code null} for a skip
 * @param skipped why the target was skipped without a request, or {@code null}
 * @param elapsed how long the attempt took (zero for a skip)
 * @param availableAt for a skip, when the target may serve again
 */
public record ChainStep(String target, int attempt, @Nullable Verdict verdict, @Nullable Skip skipped, Duration elapsed,
		@Nullable Instant availableAt) {

	/** Why a target was skipped. */
	public enum Skip {

		/** Its account is parked after a quota answer. */
		ACCOUNT_PARKED,

		/** Its account is locked after credential errors. */
		ACCOUNT_LOCKED,

		/** Its quota scope is gated after a rate limit. */
		SCOPE_GATED,

		/** Its failure domain's breaker is open (or its one trial is in flight). */
		BREAKER_OPEN,

		/**
		 * Its failure domain's breaker is held open by an operator: no time can be told,
		 * so {@link ChainStep#availableAt()} is when to check again, not a promise.
		 */
		BREAKER_FORCED_OPEN,

		/** The call's deadline left no time for it. */
		DEADLINE,

		/**
		 * Its failure domain's calls in flight from this pod are at their adaptive limit
		 * (concurrency limits on).
		 */
		AT_CONCURRENCY_LIMIT,

		/**
		 * Its provider account refuses more than it accepts, and the call was refused
		 * here before sending, its traffic class by its own probability (client-side
		 * throttling on).
		 */
		THROTTLED_LOCALLY,

		/**
		 * Its quota scope's share for the call's pool is spent for now, and no other pool
		 * leaves capacity idle (quota pools on).
		 */
		POOL_EXHAUSTED

	}

	public boolean isSkip() {
		return this.skipped != null;
	}

	/** Whether this step says the target was only rate limited. */
	public boolean isThrottle() {
		return this.skipped == Skip.SCOPE_GATED || this.skipped == Skip.POOL_EXHAUSTED
				|| (this.verdict != null && this.verdict.outcome() == Outcome.THROTTLED);
	}

	/** The verdict of the last attempt on the target among the steps, or {@code null}. */
	static @Nullable Verdict lastVerdict(List<ChainStep> steps, String target) {
		for (int i = steps.size() - 1; i >= 0; i--) {
			ChainStep step = steps.get(i);
			if (step.verdict() != null && step.target().equals(target)) {
				return step.verdict();
			}
		}
		return null;
	}

	@Override
	public String toString() {
		if (this.skipped == Skip.BREAKER_FORCED_OPEN) {
			return this.target + " skipped (breaker held open by an operator"
					+ ((this.availableAt != null) ? "; check again after " + this.availableAt : "") + ")";
		}
		if (this.skipped != null) {
			return this.target + " skipped (" + this.skipped.name().toLowerCase(Locale.ROOT).replace('_', ' ')
					+ ((this.availableAt != null) ? " until " + this.availableAt : "") + ")";
		}
		return this.target + " attempt " + this.attempt + ": " + this.verdict;
	}

}
