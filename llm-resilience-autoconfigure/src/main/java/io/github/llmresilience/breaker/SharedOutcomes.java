package io.github.llmresilience.breaker;

/**
 * Where a breaker in fleet mode sends what its calls said, for the fleet to judge the
 * failure domain as one: counted here on the call's thread, sent by the fleet's own
 * thread.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
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

	/**
	 * Whether the fleet hands out trials now (its store answers): a breaker that opens on
	 * this pod's own counts then waits for the fleet's probe lease too, so that the pods
	 * whose breakers opened before the fleet's take their trials one at a time. Without
	 * the store each pod takes its own.
	 */
	boolean leasesTrials();

	/**
	 * This pod's breaker opened on its own calls (not by following the fleet): a hint for
	 * the fleet to judge the domain now.
	 */
	void opened();

}
