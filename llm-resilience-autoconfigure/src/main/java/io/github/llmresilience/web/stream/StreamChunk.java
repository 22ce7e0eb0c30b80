package io.github.llmresilience.web.stream;

import org.jspecify.annotations.Nullable;

/**
 * One piece of a streamed answer.
 *
 * @param text the text this piece adds (may be empty)
 * @param finishReason why the answer ended ({@code stop}, {@code length},
 * {@code end_turn}, ...), on the last piece only; otherwise {@code null}
 */
public record StreamChunk(String text, @Nullable String finishReason) {

}
