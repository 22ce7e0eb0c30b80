package io.github.llmresilience.context.event;

import io.github.llmresilience.change.StateChange;

/**
 * A chain's target list was replaced at runtime; {@link #getDetail()} shows the list
 * before and after.
 */
public class ChainEditedEvent extends LlmResilienceEvent {

	public ChainEditedEvent(StateChange change) {
		super(change);
	}

}
