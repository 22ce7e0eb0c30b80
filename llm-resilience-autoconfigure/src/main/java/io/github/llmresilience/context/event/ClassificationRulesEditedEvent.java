package io.github.llmresilience.context.event;

import io.github.llmresilience.change.StateChange;

/**
 * One of the user's classification rules was added, replaced or removed at runtime;
 * {@link #getDetail()} says which and how many are in force.
 */
public class ClassificationRulesEditedEvent extends LlmResilienceEvent {

	public ClassificationRulesEditedEvent(StateChange change) {
		super(change);
	}

}
