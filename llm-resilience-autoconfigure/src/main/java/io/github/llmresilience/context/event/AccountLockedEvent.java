package io.github.llmresilience.context.event;

import io.github.llmresilience.change.StateChange;

/**
 * An account's credential was rejected several times in a row; it gets no call until
 * {@link #getUntil()}. A revoked or wrong key needs a person.
 */
public class AccountLockedEvent extends LlmResilienceEvent {

	public AccountLockedEvent(StateChange change) {
		super(change);
	}

}
