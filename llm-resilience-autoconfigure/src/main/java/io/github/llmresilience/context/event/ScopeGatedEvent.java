package io.github.llmresilience.context.event;

import io.github.llmresilience.change.StateChange;

/**
 * A quota scope ({@code account/model}) was rate limited and gets no call until
 * {@link #getUntil()}.
 */
public class ScopeGatedEvent extends LlmResilienceEvent {

	public ScopeGatedEvent(StateChange change) {
		super(change);
	}

}
