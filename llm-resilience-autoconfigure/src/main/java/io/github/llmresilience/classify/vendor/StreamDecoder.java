package io.github.llmresilience.classify.vendor;

import org.jspecify.annotations.Nullable;

/**
 * Decodes a vendor's server-sent events one at a time into text, an end, or a failure
 * that the engine classifies like any answer. Spring-free: the reactive adapters in
 * {@code web.stream} hand it each event's name and data.
 */
@FunctionalInterface
public interface StreamDecoder {

	/**
	 * @param event the event's name, or {@code null}
	 * @param data the event's data, or {@code null}
	 * @return what the event means
	 */
	StreamPiece decode(@Nullable String event, @Nullable String data);

}
