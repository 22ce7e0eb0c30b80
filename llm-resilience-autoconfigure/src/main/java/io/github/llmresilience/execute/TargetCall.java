package io.github.llmresilience.execute;

import reactor.core.publisher.Mono;

/**
 * One attempt of a reactive call against the target the {@link Attempt} names.
 *
 * @param <T> the answer's type
 */
@FunctionalInterface
public interface TargetCall<T> {

	Mono<T> call(Attempt attempt);

}
