package io.github.llmresilience.breaker;

import org.jspecify.annotations.Nullable;

/**
 * Why a breaker is open: the one reason of its latest opening, kept until it closes, and,
 * while a mode moves the breaker, the words the change's event says. The rates open a
 * breaker by themselves (Resilience4j's own transition, told by its metrics); spend, the
 * fleet and the canary say why when they move it.
 *
 * <p>
 * A mode's change to a breaker that is not an opening (a half-open trial, a close, an
 * operator's hold) keeps the cause of the opening before it: a breaker spend opened is
 * open on spend through its half-open trial.
 *
 * @param cause what opened the breaker
 * @param note what the event of the change under way says; {@code null} once told, or
 * when the rates made the change
 */
record Opening(Cause cause, @Nullable String note) {

	/** An opening the failure or slow-call rate made. */
	static final Opening RATES = new Opening(Cause.RATES, null);

	/** A change a mode makes, opening the breaker. */
	static Opening of(Cause cause, String note) {
		return new Opening(cause, note);
	}

	/**
	 * A change a mode makes that is not an opening: the cause of the standing opening
	 * stays.
	 * @param standing the breaker's opening; {@code null} when it is closed
	 */
	static Opening noting(@Nullable Opening standing, String note) {
		return new Opening((standing != null) ? standing.cause : Cause.RATES, note);
	}

	/** This opening once its event has told it. */
	Opening told() {
		return (this.note != null) ? new Opening(this.cause, null) : this;
	}

	/** Whether a change is under way whose event has not yet said why. */
	boolean untold() {
		return this.note != null;
	}

	/** What opens a breaker. */
	enum Cause {

		/** Its failure or slow-call rate. */
		RATES,

		/** Its domain's spend per call ran away ({@link SpendTrip}). */
		SPEND,

		/** The fleet holds the domain open ({@link FleetFollowing}). */
		FLEET,

		/** The canary's trial failed or never answered ({@link ProbeLease}). */
		CANARY

	}

}
