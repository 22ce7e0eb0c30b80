package io.github.llmresilience.context.event;

import io.github.llmresilience.change.StateChange;

/**
 * This pod reached the fleet's store or lost it, or found it emptied of its state
 * ({@link #getKind()} tells which); while it is lost the pod decides alone on its own
 * state, and when it was emptied the pod publishes what it holds again.
 */
public class FleetConnectionEvent extends LlmResilienceEvent {

	public FleetConnectionEvent(StateChange change) {
		super(change);
	}

}
