package io.github.llmresilience.context.event;

import io.github.llmresilience.change.StateChange;

/**
 * An operator lifted an account's park ({@code account-unparked}) or lock
 * ({@code account-unlocked}); {@link #getKind()} says which.
 */
public class AccountReleasedEvent extends LlmResilienceEvent {

	public AccountReleasedEvent(StateChange change) {
		super(change);
	}

}
