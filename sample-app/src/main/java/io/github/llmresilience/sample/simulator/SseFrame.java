package io.github.llmresilience.sample.simulator;

import org.jspecify.annotations.Nullable;

/**
 * One server-sent event of a simulated stream.
 *
 * @param event the event name, or {@code null} for none (OpenAI sends none)
 * @param data the data line
 * @param token whether the event carries a token of the answer (and so waits for the
 * model)
 */
record SseFrame(@Nullable String event, String data, boolean token) {

}
