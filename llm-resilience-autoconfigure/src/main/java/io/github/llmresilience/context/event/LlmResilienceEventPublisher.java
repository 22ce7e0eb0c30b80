package io.github.llmresilience.context.event;

import java.util.Objects;

import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.change.StateChangeListener;

import org.springframework.context.ApplicationEventPublisher;

/**
 * Publishes every {@link StateChange} as a {@link LlmResilienceEvent}.
 */
public class LlmResilienceEventPublisher implements StateChangeListener {

	private final ApplicationEventPublisher publisher;

	public LlmResilienceEventPublisher(ApplicationEventPublisher publisher) {
		this.publisher = Objects.requireNonNull(publisher, "publisher");
	}

	@Override
	public void onStateChange(StateChange change) {
		this.publisher.publishEvent(LlmResilienceEvent.of(change));
	}

}
