package io.github.llmresilience.context.event;

import io.github.llmresilience.change.StateChange;

/**
 * Overload control changed its course: a failure domain's adaptive limit on calls in
 * flight halved ({@code concurrency-limit-halved}, {@link #getSubject()} the failure
 * domain), or a provider account's client-side throttling started or stopped refusing
 * requests here ({@code client-throttling-started}, {@code client-throttling-stopped},
 * {@link #getSubject()} {@code provider/account}).
 */
public class OverloadControlEvent extends LlmResilienceEvent {

	public OverloadControlEvent(StateChange change) {
		super(change);
	}

}
