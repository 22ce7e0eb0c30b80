package io.github.llmresilience.context.event;

import io.github.llmresilience.change.StateChange;

/**
 * A quota scope's capacity was learned from the provider's rate-limit headers, or
 * changed; {@link #getSubject()} is the scope, {@link #getDetail()} the capacity.
 */
public class PoolCapacityChangedEvent extends LlmResilienceEvent {

	public PoolCapacityChangedEvent(StateChange change) {
		super(change);
	}

}
