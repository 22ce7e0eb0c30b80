package io.github.llmresilience.classify.vendor;

import io.github.llmresilience.classify.ProviderResponse;
import org.jspecify.annotations.Nullable;

/**
 * What one stream event means.
 *
 * @param kind text to hand on, the stream's end, a failure, or nothing
 * @param text the text it adds ({@link Kind#TEXT} only; may be empty)
 * @param finishReason why the answer ended, on the last text only
 * @param failure the event as an answer to classify ({@link Kind#FAILURE} only)
 */
public record StreamPiece(Kind kind, String text, @Nullable String finishReason, @Nullable ProviderResponse failure) {

	private static final StreamPiece SKIP = new StreamPiece(Kind.SKIP, "", null, null);

	private static final StreamPiece END = new StreamPiece(Kind.END, "", null, null);

	/** An event with nothing to hand on (a keep-alive, a role-only chunk). */
	public static StreamPiece skip() {
		return SKIP;
	}

	/** The stream's end. */
	public static StreamPiece end() {
		return END;
	}

	/** Text, and on the last piece the finish reason. */
	public static StreamPiece text(String text, @Nullable String finishReason) {
		return new StreamPiece(Kind.TEXT, text, finishReason, null);
	}

	/** An error or refusal inside the stream. */
	public static StreamPiece failure(ProviderResponse event) {
		return new StreamPiece(Kind.FAILURE, "", null, event);
	}

	/** What kind of piece. */
	public enum Kind {

		/** Nothing to hand on. */
		SKIP,

		/** Text to hand on. */
		TEXT,

		/** The stream ended. */
		END,

		/** The stream failed. */
		FAILURE

	}

}
