package io.github.llmresilience.sample.answers;

import org.jspecify.annotations.Nullable;

/**
 * The body of {@code POST /v1/answers} and {@code POST /v1/jobs}.
 *
 * @param question what to ask
 */
public record Question(@Nullable String question) {

	/**
	 * The question's text.
	 * @throws InvalidQuestion when there is none
	 */
	public String text() {
		if (this.question == null || this.question.isBlank()) {
			throw new InvalidQuestion("question must not be blank");
		}
		return this.question;
	}

	/** A request the service rejects itself, before any provider is asked. */
	public static final class InvalidQuestion extends RuntimeException {

		public InvalidQuestion(String message) {
			super(message);
		}

	}

}
