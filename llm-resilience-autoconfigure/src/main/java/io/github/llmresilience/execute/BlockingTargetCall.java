package io.github.llmresilience.execute;

/**
 * One attempt of a blocking call against the target the {@link Attempt} names. Use
 * {@link Attempt#timeout()} as the client's timeout for this attempt.
 *
 * @param <T> the answer's type
 */
@FunctionalInterface
public interface BlockingTargetCall<T> {

	T call(Attempt attempt) throws Exception;

}
