package io.github.llmresilience.classify;

import org.jspecify.annotations.Nullable;

/**
 * Told each time a classifier fell back to its default (4xx as {@code REQUEST}, 5xx as
 * {@code AVAILABILITY}) because the provider's {@code (status, error type)} pair is not
 * in its table, so that the table gets maintained.
 */
@FunctionalInterface
public interface UnclassifiedListener {

	/** A listener that ignores everything. */
	UnclassifiedListener NONE = (provider, status, errorType) -> {
	};

	/**
	 * Called for each defaulted classification. Must be cheap and must not throw.
	 * @param provider the provider id
	 * @param status the HTTP status, or 0 when there was none (stream event, exception)
	 * @param errorType the provider's error type or code, or {@code null} when it gave
	 * none
	 */
	void unclassified(String provider, int status, @Nullable String errorType);

	/**
	 * Called for each answer one of the user's {@code classification.rules} decided
	 * (instead of the provider's table): the recent list shows which rule reads a tuple
	 * now. A defaulted answer is not one of these. Must be cheap and must not throw; does
	 * nothing unless overridden.
	 * @param provider the provider id
	 * @param status the HTTP status, or 0 when there was none
	 * @param errorType the provider's error type or code, or {@code null}
	 * @param rule the rule that decided, {@code rules[i]}
	 */
	default void decidedByRule(String provider, int status, @Nullable String errorType, String rule) {
	}

	/**
	 * {@link #unclassified(String, int, String)}, with the verdict's
	 * {@link Verdict#reason() reason}; delegates to it unless overridden.
	 * @param provider the provider id
	 * @param status the HTTP status, or 0
	 * @param errorType the provider's error type or code, or {@code null}
	 * @param reason what decided the defaulted verdict ({@code status 418 default})
	 */
	default void unclassified(String provider, int status, @Nullable String errorType, String reason) {
		unclassified(provider, status, errorType);
	}

	/**
	 * {@link #decidedByRule(String, int, String, String)}, with the verdict's
	 * {@link Verdict#reason() reason}; delegates to it unless overridden.
	 * @param provider the provider id
	 * @param status the HTTP status, or 0
	 * @param errorType the provider's error type or code, or {@code null}
	 * @param rule the rule that decided, {@code rules[i]}
	 * @param reason the rule's conditions in words
	 */
	default void decidedByRule(String provider, int status, @Nullable String errorType, String rule, String reason) {
		decidedByRule(provider, status, errorType, rule);
	}

}
