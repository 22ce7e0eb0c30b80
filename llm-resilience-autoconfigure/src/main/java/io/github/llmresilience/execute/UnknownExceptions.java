package io.github.llmresilience.execute;

/**
 * Whose fault an exception is when no extractor recognises it as a provider's answer or a
 * transport failure (a decoding error after a healthy 200, a mapping bug, an SDK's
 * invalid-data exception, the caller's own exception).
 */
public enum UnknownExceptions {

	/**
	 * The caller's (the default): the exception reaches the caller unchanged after the
	 * first attempt, with no breaker record, no retry and no failover; it is reported as
	 * unclassified with the exception's simple class name as its type.
	 */
	CALLER,

	/**
	 * The provider's: the exception is an {@code AVAILABILITY} failure, retried, failed
	 * over and counted against the breaker, as before version 0.2.
	 */
	PROVIDER

}
