package io.github.llmresilience.autoconfigure;

import java.time.Clock;

import io.github.llmresilience.change.RecentStateChanges;
import io.github.llmresilience.classify.RecentUnclassified;
import io.github.llmresilience.context.event.LlmResilienceEvent;
import io.github.llmresilience.context.event.LlmResilienceEventPublisher;
import io.github.llmresilience.execute.LlmResilience;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of what llm-resilience remembers and tells: the recent state changes
 * and unclassified errors (shown by the actuator endpoint), and every state change as a
 * Spring {@link LlmResilienceEvent}.
 */
@AutoConfiguration(after = LlmResilienceAutoConfiguration.class)
@ConditionalOnBean(LlmResilience.class)
public final class LlmResilienceEventsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RecentStateChanges llmResilienceRecentStateChanges() {
		return new RecentStateChanges();
	}

	@Bean
	@ConditionalOnMissingBean
	RecentUnclassified llmResilienceRecentUnclassified(Clock clock) {
		return new RecentUnclassified(clock);
	}

	@Bean
	@ConditionalOnMissingBean
	LlmResilienceEventPublisher llmResilienceEventPublisher(ApplicationEventPublisher publisher) {
		return new LlmResilienceEventPublisher(publisher);
	}

}
