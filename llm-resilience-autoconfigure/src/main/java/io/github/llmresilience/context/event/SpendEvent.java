package io.github.llmresilience.context.event;

import io.github.llmresilience.change.StateChange;

/**
 * A failure domain's spend per call changed level against its trailing median:
 * {@code spend-alert} (at {@code spend.alert-multiple}), {@code spend-tripped} (at
 * {@code spend.open-multiple}, the domain's breaker opens), {@code spend-normal} (a whole
 * window below the alert again) or {@code spend-level-adopted} (a tripped level held for
 * {@code spend.adopt-after} windows became the new normal). {@link #getSubject()} is the
 * failure domain; {@link #getDetail()} holds the figures.
 */
public class SpendEvent extends LlmResilienceEvent {

	public SpendEvent(StateChange change) {
		super(change);
	}

}
