package io.github.llmresilience.context.event;

import io.github.llmresilience.change.StateChange;

/**
 * A provider answered that its whole fleet is overloaded (a 529, an
 * {@code overloaded_error}, "the service is overloaded"): until {@link #getUntil()},
 * chains try its targets after every other provider's. {@link #getSubject()} is the
 * provider id.
 */
public class ProviderOverloadedEvent extends LlmResilienceEvent {

	public ProviderOverloadedEvent(StateChange change) {
		super(change);
	}

}
