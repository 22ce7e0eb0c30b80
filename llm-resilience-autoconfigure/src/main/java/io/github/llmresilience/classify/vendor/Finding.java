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
 * @param reason what decided the outcome, in words ({@code vendor code
 * insufficient_quota}, {@code message family money: "credit balance"},
 * {@code status 503}), or {@code null} when the status alone did
 */
public record Finding(Outcome outcome, @Nullable String errorType, boolean known, @Nullable Duration bodyHint,
		@Nullable String hintText, @Nullable String reason) {

	/** A reading without a stated reason. */
	public Finding(Outcome outcome, @Nullable String errorType, boolean known, @Nullable Duration bodyHint,
			@Nullable String hintText) {
		this(outcome, errorType, known, bodyHint, hintText, null);
	}

	/** The same, with a wait hint from a body field. */
	public Finding withBodyHint(Duration hint) {
		return new Finding(this.outcome, this.errorType, this.known, hint, this.hintText, this.reason);
	}

	/** The same, with the text to search for a hint. */
	public Finding withMessage(@Nullable String message) {
		return new Finding(this.outcome, this.errorType, this.known, this.bodyHint, message, this.reason);
	}

	/** The same, without a text to search for a hint. */
	public Finding withoutTextHint() {
		return new Finding(this.outcome, this.errorType, this.known, this.bodyHint, null, this.reason);
	}

	/** The same, decided for another reason. */
	public Finding withReason(@Nullable String reason) {
		return new Finding(this.outcome, this.errorType, this.known, this.bodyHint, this.hintText, reason);
	}

	/** The same, with another outcome, known, for a reason. */
	public Finding decided(Outcome outcome, String reason) {
		return new Finding(outcome, this.errorType, true, this.bodyHint, this.hintText, reason);
	}

	/** Whether the status alone decided (no code, message or detail did). */
	public boolean byStatusAlone() {
		return this.reason == null || this.reason.startsWith("status ");
	}

}
