package io.github.llmresilience.overload;

import org.jspecify.annotations.Nullable;

/**
 * What overload control says about sending one request to one target, and what it is told
 * when the request ends. The walk asks before it takes the breaker's permit, and every
 * admitted request is settled exactly once, by {@link #settle} or {@link #release}, on
 * the same paths that settle the permit.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public interface Admission {

	/** Admits everything and counts nothing: overload control off. */
	Admission OPEN = new Admission() {

		@Override
		public @Nullable Refusal tryAdmit(String pool) {
			return null;
		}

		@Override
		public void settle(long nanos, Result result) {
		}

		@Override
		public void release() {
		}

		@Override
		public long retryNanos() {
			return 0;
		}

		@Override
		public long slotNanos() {
			return 0;
		}

		@Override
		public @Nullable OverloadState state() {
			return null;
		}

	};

	/**
	 * Admit a request of a traffic class: it then holds a place until settled.
	 * @param pool the call's pool, its traffic class
	 * @return {@code null} when admitted, else why not
	 */
	@Nullable Refusal tryAdmit(String pool);

	/**
	 * The admitted request ended with the provider's answer (or its lack).
	 * @param nanos how long it took (a stream: to its first element); negative when it is
	 * no sample of the provider's latency (a stream cut off mid-way)
	 */
	void settle(long nanos, Result result);

	/** The admitted request said nothing about the provider: give its place back. */
	void release();

	/** How long until a refused request might be admitted: a hint, never negative. */
	long retryNanos();

	/**
	 * How long until a place under the failure domain's limit may free up: zero when
	 * there is one now or no limit; a hint, never negative.
	 */
	long slotNanos();

	/** What overload control holds for the target now, or {@code null} when off. */
	@Nullable OverloadState state();

	/** Why a request was not admitted. */
	enum Refusal {

		/** Its failure domain's calls in flight are at the adaptive limit. */
		LIMITED,

		/** Its provider refuses more than it accepts: refused here, before sending. */
		SHED

	}

	/** How an admitted request ended, as overload control counts it. */
	enum Result {

		/** Answered in time, or refused for the caller's own reasons: accepted. */
		ANSWERED,

		/**
		 * Answered, later than the breaker's slow-call threshold: accepted, and a sign of
		 * a queue at the provider.
		 */
		SLOW,

		/** An overload or availability failure (a timeout too): not accepted. */
		OVERLOADED

	}

}
