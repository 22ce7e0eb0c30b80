package io.github.llmresilience.context.event;

import io.github.llmresilience.change.StateChange;

/**
 * An operator opened a gated quota scope before its time.
 */
public class ScopeReleasedEvent extends LlmResilienceEvent {

	public ScopeReleasedEvent(StateChange change) {
		super(change);
	}

}
