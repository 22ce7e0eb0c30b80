package io.github.llmresilience.breaker.internal;

/**
 * Where a breaker in fleet mode sends what its calls said, for the fleet to judge the
 * failure domain as one: counted here on the call's thread, sent by the fleet's own
 * thread.
 */
public interface SharedOutcomes {

	/**
	 * One call that counts: a success or a failure (ignored outcomes are not counted).
	 * @param failure whether it failed
	 * @param slow whether it was slow
	 */
	void record(boolean failure, boolean slow);

	/**
	 * The trial this pod was granted has ended.
	 * @param closed whether it closed the breaker (else it opened it again)
	 */
	void trialEnded(boolean closed);

}
