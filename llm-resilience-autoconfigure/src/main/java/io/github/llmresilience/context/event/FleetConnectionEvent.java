package io.github.llmresilience.context.event;

import io.github.llmresilience.change.StateChange;

/**
 * This pod reached the fleet's store or lost it ({@link #getKind()} tells which); while
 * it is lost the pod decides alone on its own state.
 */
public class FleetConnectionEvent extends LlmResilienceEvent {

	public FleetConnectionEvent(StateChange change) {
		super(change);
	}

}
