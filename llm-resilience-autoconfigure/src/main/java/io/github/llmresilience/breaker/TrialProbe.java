package io.github.llmresilience.breaker;

/**
 * Sends a failure domain's half-open trial itself (a canary), so that no user's request
 * is the trial. A breaker with one lets no call through while open or half-open: it wakes
 * the probe when its open time ends and takes the probe's answer as the trial's outcome.
 *
 * <p>
 * Both methods return at once and never throw: the probe's work runs on its own
 * scheduler, never on a caller's thread.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public interface TrialProbe {

	/**
	 * Call {@link Breaker#probeDue()} at the given moment (or soon after): the breaker's
	 * open time ends then.
	 * @param breaker the breaker to wake
	 * @param atMillis the moment, on the breaker's clock
	 */
	void wakeAt(Breaker breaker, long atMillis);

	/**
	 * Send one trial, and report its outcome exactly once through
	 * {@link Breaker#probeAnswered(long, boolean, long, String)}, whatever happens.
	 * @param breaker the half-open breaker
	 * @param trial the trial's number, handed back with the outcome
	 */
	void send(Breaker breaker, long trial);

}
