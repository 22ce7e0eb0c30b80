package io.github.llmresilience.context.event;

import io.github.llmresilience.change.StateChange;

/**
 * An account ran out of quota and gets no call until {@link #getUntil()}, its reset: the
 * event to page someone on, because a spend cap or a billing problem does not clear by
 * itself.
 */
public class AccountParkedEvent extends LlmResilienceEvent {

	public AccountParkedEvent(StateChange change) {
		super(change);
	}

}
