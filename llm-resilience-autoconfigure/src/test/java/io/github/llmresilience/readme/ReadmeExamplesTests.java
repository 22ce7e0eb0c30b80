package io.github.llmresilience.readme;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.llmresilience.autoconfigure.LlmResilienceAutoConfiguration;
import io.github.llmresilience.autoconfigure.LlmResilienceEventsAutoConfiguration;
import io.github.llmresilience.context.event.LlmResilienceEvent;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.state.ResilienceState;
import io.github.llmresilience.state.TargetState.BreakerState;
import io.github.llmresilience.target.Secret;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/** The README's first example, run as a user would: a real server, the defaults. */
class ReadmeExamplesTests {

	@Test
	void theReactiveExampleAnswersThroughAChain() {
		try (FakeProvider provider = new FakeProvider()) {
			provider.always("primary", Reply.json(503, FakeProvider.OPENAI_503));
			provider.always("secondary", Reply.ok(FakeProvider.OPENAI_OK));
			LlmResilience resilience = LlmResilience.builder()
				.target(target("primary", provider))
				.target(target("secondary", provider))
				.chain("chat", "primary", "secondary")
				.extractors(io.github.llmresilience.extract.ErrorExtractors.standard()
					.with(List.of(new io.github.llmresilience.web.WebClientErrorExtractor())))
				.build();

			String answer = new ReadmeExamples.Answers(resilience).answer("Hi").block(Duration.ofSeconds(30));
			assertThat(answer).isEqualTo(FakeProvider.OPENAI_OK);
			assertThat(provider.requests("secondary")).isEqualTo(1);
			assertThat(provider.lastHeader("secondary", "Authorization")).containsExactly("Bearer sk-test-secondary");
		}
	}

	/**
	 * The README's "Operate it, from code" example in a plain Spring Boot context with
	 * the defaults, a listener of the application's that throws on every event, and
	 * callers that keep calling and reading the state while the operator acts.
	 */
	@Test
	void theOperateExampleWorksWithTheDefaultsAThrowingListenerAndConcurrentCallers() throws Exception {
		try (FakeProvider provider = new FakeProvider()) {
			provider.always("primary", Reply.ok(FakeProvider.OPENAI_OK));
			provider.always("secondary", Reply.ok(FakeProvider.OPENAI_OK));
			new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(LlmResilienceAutoConfiguration.class,
						LlmResilienceEventsAutoConfiguration.class))
				.withUserConfiguration(ThrowingListener.class)
				.withPropertyValues("llm.resilience.targets.primary.provider=openai",
						"llm.resilience.targets.primary.base-url=" + provider.baseUrl("primary"),
						"llm.resilience.targets.secondary.provider=openai",
						"llm.resilience.targets.secondary.region=eu",
						"llm.resilience.targets.secondary.base-url=" + provider.baseUrl("secondary"),
						"llm.resilience.chains.chat[0]=primary", "llm.resilience.chains.chat[1]=secondary")
				.run((context) -> {
					LlmResilience resilience = context.getBean(LlmResilience.class);
					RestClient http = RestClient.create();
					ExecutorService callers = Executors.newFixedThreadPool(4);
					AtomicBoolean running = new AtomicBoolean(true);
					List<Future<Integer>> served = new ArrayList<>();
					for (int i = 0; i < 4; i++) {
						served.add(callers.submit(() -> {
							int answers = 0;
							while (running.get()) {
								resilience.state();
								String answer = resilience.call("chat",
										(attempt) -> http.post()
											.uri(attempt.target().baseUrl() + "/v1/chat/completions")
											.body("{}")
											.retrieve()
											.body(String.class));
								answers += FakeProvider.OPENAI_OK.equals(answer) ? 1 : 0;
							}
							return answers;
						}));
					}
					ReadmeExamples.operate(resilience, LoggerFactory.getLogger(ReadmeExamplesTests.class));
					running.set(false);
					int answers = 0;
					for (Future<Integer> each : served) {
						answers += each.get(30, TimeUnit.SECONDS);
					}
					callers.shutdown();
					ResilienceState state = resilience.state();
					assertThat(state.target("primary").breaker().status()).isEqualTo(BreakerState.Status.FORCED_OPEN);
					assertThat(state.target("primary").usable()).isFalse();
					assertThat(state.chain("chat").targets()).containsExactly("secondary", "primary");
					assertThat(state.chain("chat").edited()).isTrue();
					assertThat(state.chain("chat").usable()).isTrue();
					assertThat(answers).as("answers while the operator acted").isPositive();

					// Held open and reordered, whatever the listener threw: no call
					// reaches
					// primary any more.
					int primaryBefore = provider.requests("primary");
					for (int i = 0; i < 20; i++) {
						String answer = resilience.call("chat",
								(attempt) -> http.post()
									.uri(attempt.target().baseUrl() + "/v1/chat/completions")
									.body("{}")
									.retrieve()
									.body(String.class));
						assertThat(answer).isEqualTo(FakeProvider.OPENAI_OK);
					}
					assertThat(provider.requests("primary")).isEqualTo(primaryBefore);
					assertThat(context.getBean(ThrowingListener.class).events.get()).isGreaterThanOrEqualTo(2);
				});
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class ThrowingListener {

		final AtomicInteger events = new AtomicInteger();

		@EventListener
		void on(LlmResilienceEvent event) {
			this.events.incrementAndGet();
			throw new IllegalStateException("the application's listener fails");
		}

	}

	private static Target target(String name, FakeProvider provider) {
		return new Target(name, "openai", name, "gpt-4o", "us", URI.create(provider.baseUrl(name)),
				Secret.of("sk-test-" + name));
	}

}
