package io.github.llmresilience.classify.vendor;

import java.time.Duration;

import io.github.llmresilience.classify.Outcome;
import org.jspecify.annotations.Nullable;

/**
 * A vendor's reading of one answer, which {@link VendorClassifier} turns into a verdict.
 *
 * @param outcome the outcome
 * @param errorType the provider's error type or code
 * @param known whether the provider's table knew it (otherwise it is reported)
 * @param bodyHint a wait hint from a structured body field, such as Google's
 * {@code RetryInfo.retryDelay}
 * @param hintText the text to search for a wait hint when no header or field gives one,
 * or {@code null} to not search
 */
public record Finding(Outcome outcome, @Nullable String errorType, boolean known, @Nullable Duration bodyHint,
		@Nullable String hintText) {

	/** The same, with a wait hint from a body field. */
	public Finding withBodyHint(Duration hint) {
		return new Finding(this.outcome, this.errorType, this.known, hint, this.hintText);
	}

	/** The same, with the text to search for a hint. */
	public Finding withMessage(@Nullable String message) {
		return new Finding(this.outcome, this.errorType, this.known, this.bodyHint, message);
	}

	/** The same, without a text to search for a hint. */
	public Finding withoutTextHint() {
		return new Finding(this.outcome, this.errorType, this.known, this.bodyHint, null);
	}

}
