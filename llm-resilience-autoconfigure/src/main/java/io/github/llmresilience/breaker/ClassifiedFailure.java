package io.github.llmresilience.breaker;

import io.github.llmresilience.classify.Verdict;

/**
 * A failure whose {@link Verdict} is already known, as handed to a breaker: its
 * record/ignore predicates read the verdict instead of classifying again.
 */
final class ClassifiedFailure extends RuntimeException {

	private final transient Verdict verdict;

	ClassifiedFailure(Verdict verdict, Throwable cause) {
		super(verdict.toString(), cause, false, false);
		this.verdict = verdict;
	}

	Verdict verdict() {
		return this.verdict;
	}

}
