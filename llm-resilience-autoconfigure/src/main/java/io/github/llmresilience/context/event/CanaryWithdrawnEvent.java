package io.github.llmresilience.context.event;

import io.github.llmresilience.change.StateChange;

/**
 * A failure domain's canary was refused for its own request ({@code canary-withdrawn}):
 * the provider answered it with a {@code REQUEST} or {@code CONTENT_FILTER} verdict, so
 * it cannot judge the domain. It stops, and calls are the domain's half-open trials from
 * now on, until the application restarts with corrected canary settings.
 * {@link #getSubject()} is the failure domain; {@link #getDetail()} names the target and
 * the answer's status and verdict.
 */
public class CanaryWithdrawnEvent extends LlmResilienceEvent {

	public CanaryWithdrawnEvent(StateChange change) {
		super(change);
	}

}
