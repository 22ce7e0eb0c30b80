package io.github.llmresilience.fleet;

import java.time.Instant;

import io.github.llmresilience.fleet.FleetStore.Write;
import io.github.llmresilience.state.FleetState;

/**
 * What the engine tells its fleet: gates, parks and locks it set, and operator commands.
 * Each method only queues the write for the fleet's own thread and returns: a call never
 * waits on the fleet's store.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public interface Fleet extends AutoCloseable {

	/** Fleet mode off: the pod decides alone and tells nobody. */
	Fleet NONE = new Fleet() {

		@Override
		public void hold(Write.Kind kind, String subject, String reason, Instant until) {
		}

		@Override
		public void command(Write.Kind kind, String subject, String value) {
		}

		@Override
		public FleetState state() {
			return FleetState.LOCAL;
		}

		@Override
		public void close() {
		}

	};

	/**
	 * A gate, park or lock this pod set.
	 * @param kind {@link Write.Kind#GATE}, {@link Write.Kind#PARK} or
	 * {@link Write.Kind#LOCK}
	 * @param subject the quota scope or account
	 * @param reason why, as the event said
	 * @param until its end on this pod's clock
	 */
	void hold(Write.Kind kind, String subject, String reason, Instant until);

	/**
	 * An operator's command on this pod.
	 * @param kind what it is
	 * @param subject the scope, account, failure domain or chain
	 * @param value the breaker status or the chain's targets, else empty
	 */
	void command(Write.Kind kind, String subject, String value);

	/** How the fleet looks from this pod now. */
	FleetState state();

	@Override
	void close();

}
