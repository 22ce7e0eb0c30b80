package io.github.llmresilience.context.event;

import io.github.llmresilience.change.StateChange;

/**
 * The breaker of a failure domain changed state: opened, half-open, closed, forced open
 * by an operator, disabled or reset. {@link #getKind()} says which; {@link #getSubject()}
 * is the failure domain ({@code provider/model/region}).
 */
public class BreakerTransitionEvent extends LlmResilienceEvent {

	public BreakerTransitionEvent(StateChange change) {
		super(change);
	}

}
