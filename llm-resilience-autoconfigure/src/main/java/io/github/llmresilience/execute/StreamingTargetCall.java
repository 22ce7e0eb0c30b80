package io.github.llmresilience.execute;

import reactor.core.publisher.Flux;

/**
 * One attempt of a streaming call against the target the {@link Attempt} names. Emit the
 * answer's pieces as they arrive; signal an in-stream error event as an error (the SSE
 * helpers in the {@code web} package do this for OpenAI and Anthropic streams).
 *
 * @param <T> the type of one piece of the answer
 */
@FunctionalInterface
public interface StreamingTargetCall<T> {

	Flux<T> call(Attempt attempt);

}
