package io.github.llmresilience.breaker;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import org.jspecify.annotations.Nullable;

/**
 * A breaker's spend mode: a runaway bill opens a closed breaker like a failure rate
 * would, and the breaker stays open on spend until it closes. It keeps no state of its
 * own: the breaker's {@link Opening} says whether spend opened it.
 */
final class SpendTrip {

	private SpendTrip() {
	}

	/**
	 * Whether spend may open a breaker: only a closed one the fleet does not hold; an
	 * open, half-open, forced-open or disabled breaker is left as it is.
	 */
	static boolean mayOpen(CircuitBreaker.State state, boolean fleetHeld) {
		return !fleetHeld && state == CircuitBreaker.State.CLOSED;
	}

	/**
	 * The opening spend makes.
	 * @param detail the spend figures, for the event
	 */
	static Opening opening(String detail) {
		return Opening.of(Opening.Cause.SPEND, "spend: " + detail);
	}

	/** Whether spend made this opening (and the breaker has not closed since). */
	static boolean opened(@Nullable Opening opening) {
		return opening != null && opening.cause() == Opening.Cause.SPEND;
	}

}
