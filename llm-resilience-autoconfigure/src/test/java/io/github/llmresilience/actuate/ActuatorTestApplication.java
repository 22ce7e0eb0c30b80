package io.github.llmresilience.actuate;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.llmresilience.context.event.LlmResilienceEvent;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.webtestclient.autoconfigure.WebTestClientBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;

/**
 * The application every actuator test runs: the auto-configurations, the events it
 * published, and an autowired {@code WebTestClient} that waits for every answer on a
 * connection of its own (see {@link ActuatorClients}). What differs between tests is
 * their properties, and whether time is virtual ({@link VirtualTime}, beside this class
 * in {@code classes}).
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
class ActuatorTestApplication {

	/**
	 * Two OpenAI targets and the chain {@code chat} over them, which every actuator test
	 * reads or edits; a test adds accounts, keys and regions of its own.
	 */
	static final String CHAT_CHAIN = """
			llm.resilience.targets.primary.provider=openai
			llm.resilience.targets.primary.model=gpt-4o
			llm.resilience.targets.secondary.provider=openai
			llm.resilience.targets.secondary.model=gpt-4o-mini
			llm.resilience.chains.chat=primary,secondary
			""";

	@Bean
	EventCollector eventCollector() {
		return new EventCollector();
	}

	@Bean
	WebTestClientBuilderCustomizer noResponseDeadline() {
		return (builder) -> ActuatorClients.oneConnectionPerRequest(builder)
			.responseTimeout(ActuatorClients.NO_DEADLINE);
	}

	/** Every {@link LlmResilienceEvent} the application published, in order. */
	static class EventCollector {

		private final List<LlmResilienceEvent> events = new CopyOnWriteArrayList<>();

		@EventListener
		void on(LlmResilienceEvent event) {
			this.events.add(event);
		}

		List<LlmResilienceEvent> all() {
			return List.copyOf(this.events);
		}

		/** The events of one kind, in order. */
		<E extends LlmResilienceEvent> List<E> all(Class<E> type) {
			return this.events.stream().filter(type::isInstance).map(type::cast).toList();
		}

		void clear() {
			this.events.clear();
		}

	}

}
