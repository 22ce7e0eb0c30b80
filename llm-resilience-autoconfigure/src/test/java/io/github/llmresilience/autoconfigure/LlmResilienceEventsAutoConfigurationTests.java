package io.github.llmresilience.autoconfigure;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.llmresilience.change.RecentStateChanges;
import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.RecentUnclassified;
import io.github.llmresilience.context.event.AccountReleasedEvent;
import io.github.llmresilience.context.event.BreakerTransitionEvent;
import io.github.llmresilience.context.event.ChainEditedEvent;
import io.github.llmresilience.context.event.LlmResilienceEvent;
import io.github.llmresilience.context.event.LlmResilienceEventPublisher;
import io.github.llmresilience.execute.CallOptions;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.execute.LlmUnavailableException;
import io.github.llmresilience.extract.ProviderAnswerException;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class LlmResilienceEventsAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(LlmResilienceAutoConfiguration.class, LlmResilienceEventsAutoConfiguration.class))
		.withPropertyValues("llm.resilience.targets.primary.provider=openai",
				"llm.resilience.targets.secondary.provider=openai", "llm.resilience.targets.secondary.region=eu",
				"llm.resilience.chains.chat[0]=primary", "llm.resilience.chains.chat[1]=secondary");

	@Test
	void everyStateChangeIsRecordedAndPublishedOnceAsItsApplicationEvent() {
		this.runner.withUserConfiguration(EventCollectorConfiguration.class).run((context) -> {
			LlmResilience resilience = context.getBean(LlmResilience.class);
			List<LlmResilienceEvent> events = context.getBean(EventCollectorConfiguration.class).events;

			resilience.operator().forceOpen("primary");
			resilience.operator().replaceChain("chat", List.of("secondary", "primary"));
			resilience.operator().unpark("primary");

			assertThat(events).hasSize(2);
			assertThat(events.get(0)).isInstanceOf(BreakerTransitionEvent.class)
				.satisfies((event) -> assertThat(event.getKind()).isEqualTo(StateChange.Kind.BREAKER_FORCED_OPEN));
			assertThat(events.get(1)).isInstanceOf(ChainEditedEvent.class)
				.satisfies((event) -> assertThat(event.getDetail())
					.isEqualTo("[primary, secondary] -> [secondary, primary]"));
			assertThat(context.getBean(RecentStateChanges.class).list()).extracting(StateChange::kind)
				.containsExactly(StateChange.Kind.CHAIN_EDITED, StateChange.Kind.BREAKER_FORCED_OPEN);
		});
	}

	@Test
	void aResetIsAStateChangeToo() {
		this.runner.withUserConfiguration(EventCollectorConfiguration.class).run((context) -> {
			LlmResilience resilience = context.getBean(LlmResilience.class);
			resilience.operator().reset("primary");
			assertThat(context.getBean(EventCollectorConfiguration.class).events).singleElement()
				.satisfies((event) -> assertThat(event.getKind()).isEqualTo(StateChange.Kind.BREAKER_RESET));
		});
	}

	@Test
	void aLiftedLockIsAnAccountReleasedEvent() {
		this.runner.withUserConfiguration(EventCollectorConfiguration.class).run((context) -> {
			LlmResilience resilience = context.getBean(LlmResilience.class);
			for (int i = 0; i < 2; i++) {
				assertThatExceptionOfType(LlmUnavailableException.class)
					.isThrownBy(() -> resilience.callOnTarget("primary", CallOptions.NONE, (attempt) -> {
						throw new ProviderAnswerException(ProviderResponse.of(401, Map.of(),
								"{\"error\":{\"code\":\"invalid_api_key\",\"type\":\"invalid_request_error\"}}"));
					}));
			}
			resilience.operator().unlock("primary");
			List<LlmResilienceEvent> events = context.getBean(EventCollectorConfiguration.class).events;
			assertThat(events).extracting(LlmResilienceEvent::getKind)
				.containsExactly(StateChange.Kind.ACCOUNT_LOCKED, StateChange.Kind.ACCOUNT_UNLOCKED);
			assertThat(events.get(1)).isInstanceOf(AccountReleasedEvent.class);
		});
	}

	@Test
	void whenLlmResilienceIsDisabledProvidesNoRecorders() {
		this.runner.withPropertyValues("llm.resilience.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(RecentStateChanges.class);
			assertThat(context).doesNotHaveBean(RecentUnclassified.class);
			assertThat(context).doesNotHaveBean(LlmResilienceEventPublisher.class);
		});
	}

	@Test
	void whenTheUserDefinesTheRecordersTheirsWin() {
		this.runner.withUserConfiguration(OwnRecordersConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(RecentStateChanges.class);
			assertThat(context.getBean(RecentStateChanges.class).capacity()).isEqualTo(5);
			assertThat(context.getBean(RecentUnclassified.class)).isSameAs(context.getBean("myUnclassified"));
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class EventCollectorConfiguration {

		final List<LlmResilienceEvent> events = new CopyOnWriteArrayList<>();

		@EventListener
		void on(LlmResilienceEvent event) {
			this.events.add(event);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnRecordersConfiguration {

		@Bean
		RecentStateChanges myChanges() {
			return new RecentStateChanges(5);
		}

		@Bean
		RecentUnclassified myUnclassified() {
			return new RecentUnclassified(Clock.systemUTC(), 5);
		}

	}

}
