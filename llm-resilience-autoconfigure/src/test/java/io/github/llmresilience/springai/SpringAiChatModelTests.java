package io.github.llmresilience.springai;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import io.github.llmresilience.autoconfigure.LlmResilienceAutoConfiguration;
import io.github.llmresilience.autoconfigure.LlmResilienceSpringAiAutoConfiguration;
import io.github.llmresilience.execute.Answer;
import io.github.llmresilience.execute.CallObserver;
import io.github.llmresilience.execute.LlmRejectedException;
import io.github.llmresilience.execute.LlmStreamInterruptedException;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.test.ChatBodies;
import io.github.llmresilience.test.FakeProvider.Reply;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.ManualTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Scheduler;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.anthropic.autoconfigure.AnthropicChatAutoConfiguration;
import org.springframework.ai.model.chat.client.autoconfigure.ChatClientAutoConfiguration;
import org.springframework.ai.model.openai.autoconfigure.OpenAiChatAutoConfiguration;
import org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration;
import org.springframework.ai.retry.autoconfigure.SpringAiRetryProperties;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The chain's ChatModel over real Spring AI 2.0.1 chat models ({@code OpenAiChatModel} on
 * the OpenAI SDK, {@code AnthropicChatModel} on the Anthropic SDK), auto-configured and
 * pointed at an in-process fake provider speaking each vendor's format. Requests are
 * counted at the server, so every SDK retry underneath would show.
 */
class SpringAiChatModelTests {

	private final FakeProvider provider = new FakeProvider();

	private final ManualTime time = new ManualTime();

	@AfterEach
	void close() {
		this.provider.close();
	}

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ToolCallingAutoConfiguration.class,
					OpenAiChatAutoConfiguration.class, AnthropicChatAutoConfiguration.class,
					LlmResilienceAutoConfiguration.class, LlmResilienceSpringAiAutoConfiguration.class))
			.withBean("llmResilienceClock", Clock.class, () -> this.time)
			// Timers on virtual time too; not a default candidate, so it is no second
			// Clock.
			.withBean("llmResilienceScheduler", Scheduler.class, () -> this.time.schedulerOnly(),
					(definition) -> ((AbstractBeanDefinition) definition).setDefaultCandidate(false))
			.withPropertyValues("spring.ai.openai.api-key=test-key",
					"spring.ai.openai.base-url=" + this.provider.baseUrl("gpt"), "spring.ai.anthropic.api-key=test-key",
					"spring.ai.anthropic.base-url=" + this.provider.baseUrl("claude"),
					"llm.resilience.targets.gpt.provider=openai", "llm.resilience.targets.gpt.model=gpt-4o",
					"llm.resilience.targets.gpt.chat-model=openAiChatModel",
					"llm.resilience.targets.gpt.timeouts.attempt=2s",
					"llm.resilience.breaker.slow-call-duration=1500ms",
					"llm.resilience.targets.claude.provider=anthropic",
					"llm.resilience.targets.claude.model=claude-sonnet-4",
					"llm.resilience.targets.claude.chat-model=anthropicChatModel",
					"llm.resilience.chains.chat=gpt,claude", "llm.resilience.retry.max-attempts=1",
					"llm.resilience.breaker.minimum-calls=5", "llm.resilience.breaker.sliding-window-size=10");
	}

	private void run(Consumer<ChatModel> test) {
		runner().run((context) -> {
			assertThat(context).hasNotFailed();
			test.accept(context.getBean("chatChatModel", ChatModel.class));
		});
	}

	private static String text(ChatResponse response) {
		return response.getResult().getOutput().getText();
	}

	@Test
	void theChainsChatModelIsABeanNamedForTheChainOverTheAutoConfiguredChatModels() {
		runner().run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean("chatChatModel")).isInstanceOfSatisfying(ResilientChatModel.class,
					(model) -> assertThat(model.chain()).isEqualTo("chat"));
			assertThat(context.getBean("openAiChatModel")).isNotInstanceOf(ResilientChatModel.class);
			this.provider.always("gpt", Reply.ok(ChatBodies.OPENAI_OK));
			assertThat(context.getBean("chatChatModel", ChatModel.class).call("Hi")).isEqualTo("Hello from gpt");
			assertThat(this.provider.requests("gpt")).isEqualTo(1);
		});
	}

	@Test
	void theTokensSpringAiReadFromEachAnswerReachTheEngine() {
		this.provider.always("gpt", Reply.json(503, ChatBodies.OPENAI_SERVER_ERROR));
		this.provider.always("claude", Reply.ok(ChatBodies.ANTHROPIC_OK));
		List<String> told = new CopyOnWriteArrayList<>();
		runner().withBean(CallObserver.class, () -> new CallObserver() {
			@Override
			public void onAnswer(String chain, Target target, Answer answer) {
				told.add(target.name() + " " + answer.usage());
			}
		}).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(text(context.getBean("chatChatModel", ChatModel.class).call(new Prompt("Hi"))))
				.isEqualTo("Hello from claude");
			assertThat(told).containsExactly("claude Usage[inputTokens=5, outputTokens=3]");
		});
	}

	@Test
	void springAisAutoConfiguredChatClientBuilderIsBuiltOnTheOnlyChainsChatModel() {
		this.provider.always("gpt", Reply.json(503, ChatBodies.OPENAI_SERVER_ERROR));
		this.provider.always("claude", Reply.ok(ChatBodies.ANTHROPIC_OK));
		runner().withConfiguration(AutoConfigurations.of(ChatClientAutoConfiguration.class)).run((context) -> {
			assertThat(context).hasNotFailed();
			ChatClient chat = context.getBean(ChatClient.Builder.class).build();
			assertThat(chat.prompt().user("Hi").call().content()).isEqualTo("Hello from claude");
			assertThat(this.provider.requests("gpt")).isEqualTo(1);
		});
	}

	@Test
	void duringAnOutageTheFailingModelGetsNoMoreThanMinimumCallsRequests() {
		this.provider.always("gpt", Reply.json(503, ChatBodies.OPENAI_SERVER_ERROR));
		this.provider.always("claude", Reply.ok(ChatBodies.ANTHROPIC_OK));
		run((chat) -> {
			for (int i = 0; i < 30; i++) {
				assertThat(text(chat.call(new Prompt("Hi")))).isEqualTo("Hello from claude");
			}
			assertThat(this.provider.requests("gpt")).isPositive().isLessThanOrEqualTo(5);
			assertThat(this.provider.requests("claude")).isEqualTo(30);
		});
	}

	@Test
	void aRetryAfterOf20SecondsKeepsEveryRequestAwayFromThatScopeFor20Seconds() {
		this.provider.script("gpt",
				(n) -> (n == 1) ? Reply.json(429, Map.of("retry-after", "20", "x-ratelimit-remaining-requests", "0"),
						ChatBodies.OPENAI_RATE_LIMIT) : Reply.ok(ChatBodies.OPENAI_OK));
		this.provider.always("claude", Reply.ok(ChatBodies.ANTHROPIC_OK));
		run((chat) -> {
			assertThat(text(chat.call(new Prompt("Hi")))).isEqualTo("Hello from claude");
			for (Duration at : List.of(Duration.ofSeconds(1), Duration.ofSeconds(8), Duration.ofSeconds(10),
					Duration.ofMillis(19_900))) {
				this.time.advanceTo(Instant.parse("2026-11-29T12:00:00Z").plus(at));
				assertThat(text(chat.call(new Prompt("Hi")))).isEqualTo("Hello from claude");
			}
			assertThat(this.provider.requests("gpt")).isEqualTo(1);
			this.time.advanceTo(Instant.parse("2026-11-29T12:00:20Z"));
			assertThat(text(chat.call(new Prompt("Hi")))).isEqualTo("Hello from gpt");
			assertThat(this.provider.requests("gpt")).isEqualTo(2);
		});
	}

	@Test
	void anOpenAiResetHeaderWithoutRetryAfterKeepsRequestsAwayUntilTheReset() {
		this.provider.script("gpt",
				(n) -> (n == 1) ? Reply.json(429,
						Map.of("x-ratelimit-remaining-requests", "0", "x-ratelimit-reset-requests", "20s",
								"x-ratelimit-remaining-tokens", "29000", "x-ratelimit-reset-tokens", "120ms"),
						ChatBodies.OPENAI_RATE_LIMIT) : Reply.ok(ChatBodies.OPENAI_OK));
		this.provider.always("claude", Reply.ok(ChatBodies.ANTHROPIC_OK));
		run((chat) -> {
			assertThat(text(chat.call(new Prompt("Hi")))).isEqualTo("Hello from claude");
			this.time.advance(Duration.ofMillis(19_900));
			assertThat(text(chat.call(new Prompt("Hi")))).isEqualTo("Hello from claude");
			assertThat(this.provider.requests("gpt")).isEqualTo(1);
			this.time.advance(Duration.ofMillis(100));
			assertThat(text(chat.call(new Prompt("Hi")))).isEqualTo("Hello from gpt");
		});
	}

	@Test
	void anAnthropicRateLimitResetReachesTheClassifierFromTheSdksException() {
		// The reset is an instant, read against the answer's Date header, which the JDK
		// server sets from the wall clock (whole seconds): 20 s after it, give or take
		// the second the header was written in.
		this.provider.script("claude", (n) -> (n == 1) ? Reply.json(429,
				Map.of("anthropic-ratelimit-requests-remaining", "0", "anthropic-ratelimit-requests-reset",
						Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).plusSeconds(20).toString(),
						"anthropic-ratelimit-tokens-remaining", "40000", "anthropic-ratelimit-tokens-reset",
						Instant.now().plusSeconds(1).toString()),
				ChatBodies.ANTHROPIC_RATE_LIMIT) : Reply.ok(ChatBodies.ANTHROPIC_OK));
		this.provider.always("gpt", Reply.ok(ChatBodies.OPENAI_OK));
		runner().withPropertyValues("llm.resilience.chains.chat=claude,gpt").run((context) -> {
			ChatModel chat = context.getBean("chatChatModel", ChatModel.class);
			assertThat(text(chat.call(new Prompt("Hi")))).isEqualTo("Hello from gpt");
			this.time.advance(Duration.ofSeconds(18));
			assertThat(text(chat.call(new Prompt("Hi")))).isEqualTo("Hello from gpt");
			assertThat(this.provider.requests("claude")).isEqualTo(1);
			this.time.advance(Duration.ofSeconds(3));
			assertThat(text(chat.call(new Prompt("Hi")))).isEqualTo("Hello from claude");
		});
	}

	@Test
	void insufficientQuotaIsOneRequest() {
		this.provider.always("gpt", Reply.json(429, ChatBodies.OPENAI_QUOTA));
		this.provider.always("claude", Reply.ok(ChatBodies.ANTHROPIC_OK));
		run((chat) -> {
			for (int i = 0; i < 5; i++) {
				assertThat(text(chat.call(new Prompt("Hi")))).isEqualTo("Hello from claude");
			}
			assertThat(this.provider.requests("gpt")).isEqualTo(1);
		});
	}

	@Test
	void aBadRequestIsOneRequestInTheWholeChain() {
		this.provider.always("gpt", Reply.json(400, ChatBodies.OPENAI_BAD_REQUEST));
		this.provider.always("claude", Reply.ok(ChatBodies.ANTHROPIC_OK));
		run((chat) -> {
			assertThatExceptionOfType(LlmRejectedException.class).isThrownBy(() -> chat.call(new Prompt("Hi")));
			assertThat(this.provider.requests("gpt")).isEqualTo(1);
			assertThat(this.provider.requests("claude")).isZero();
		});
	}

	@Test
	void aContentFilterIsOneRequestInTheWholeChain() {
		this.provider.always("gpt", Reply.json(400, ChatBodies.OPENAI_CONTENT_FILTER));
		this.provider.always("claude", Reply.ok(ChatBodies.ANTHROPIC_OK));
		run((chat) -> {
			assertThatExceptionOfType(LlmRejectedException.class).isThrownBy(() -> chat.call(new Prompt("Hi")));
			assertThat(this.provider.requests("gpt")).isEqualTo(1);
			assertThat(this.provider.requests("claude")).isZero();
		});
	}

	@Test
	void aHungModelIsLeftAtTheAttemptTimeout() {
		this.provider.always("gpt", Reply.hang());
		this.provider.always("claude", Reply.ok(ChatBodies.ANTHROPIC_OK));
		run((chat) -> {
			CompletableFuture<ChatResponse> answer = CompletableFuture.supplyAsync(() -> chat.call(new Prompt("Hi")));
			await().atMost(Duration.ofSeconds(30)).until(() -> this.provider.requests("gpt") == 1);
			this.time.advance(Duration.ofMillis(1999));
			assertThat(answer).isNotDone();
			this.time.advance(Duration.ofMillis(1));
			assertThat(text(answer.join())).isEqualTo("Hello from claude");
			assertThat(this.time.elapsed()).isEqualTo(Duration.ofSeconds(2));
			assertThat(this.provider.requests("gpt")).isEqualTo(1);
		});
	}

	@Test
	void onTheSystemClockAHungModelIsLeftAtAboutTheAttemptTimeout() {
		this.provider.always("gpt", Reply.hang());
		this.provider.always("claude", Reply.ok(ChatBodies.ANTHROPIC_OK));
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ToolCallingAutoConfiguration.class,
					OpenAiChatAutoConfiguration.class, AnthropicChatAutoConfiguration.class,
					LlmResilienceAutoConfiguration.class, LlmResilienceSpringAiAutoConfiguration.class))
			.withPropertyValues("spring.ai.openai.api-key=test-key",
					"spring.ai.openai.base-url=" + this.provider.baseUrl("gpt"), "spring.ai.anthropic.api-key=test-key",
					"spring.ai.anthropic.base-url=" + this.provider.baseUrl("claude"),
					"llm.resilience.targets.gpt.provider=openai",
					"llm.resilience.targets.gpt.chat-model=openAiChatModel",
					"llm.resilience.targets.gpt.timeouts.attempt=1s", "llm.resilience.breaker.slow-call-duration=800ms",
					"llm.resilience.targets.claude.provider=anthropic",
					"llm.resilience.targets.claude.chat-model=anthropicChatModel",
					"llm.resilience.chains.chat=gpt,claude")
			.run((context) -> {
				ChatModel chat = context.getBean("chatChatModel", ChatModel.class);
				long start = System.nanoTime();
				assertThat(chat.call("Hi")).isEqualTo("Hello from claude");
				Duration took = Duration.ofNanos(System.nanoTime() - start);
				// Not before the attempt timeout; long before the SDK's own 60 s.
				assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(900)).isLessThan(Duration.ofSeconds(30));
				assertThat(this.provider.requests("gpt")).isEqualTo(1);
			});
	}

	@Test
	void aStreamThatFailsBeforeItsFirstTokenIsServedByTheNextModel() {
		this.provider.always("gpt", Reply.json(503, ChatBodies.OPENAI_SERVER_ERROR));
		this.provider.always("claude",
				Reply.json(200, Map.of("content-type", "text/event-stream"), ChatBodies.ANTHROPIC_STREAM));
		run((chat) -> {
			List<ChatResponse> responses = chat.stream(new Prompt("Hi")).collectList().block(Duration.ofSeconds(30));
			assertThat(responses).isNotNull();
			assertThat(responses.stream()
				.filter((response) -> response.getResult() != null && response.getResult().getOutput() != null)
				.map((response) -> response.getResult().getOutput().getText())
				.filter((text) -> text != null)
				.reduce("", String::concat)).isEqualTo("Hello from claude");
			assertThat(this.provider.requests("gpt")).isEqualTo(1);
			assertThat(this.provider.requests("claude")).isEqualTo(1);
		});
	}

	@Test
	void anAnthropicOverloadEventBeforeTheFirstTokenIsServedByTheNextModel() {
		this.provider.always("claude",
				Reply.json(200, Map.of("content-type", "text/event-stream"), ChatBodies.ANTHROPIC_STREAM_OVERLOADED));
		this.provider.always("gpt",
				Reply.json(200, Map.of("content-type", "text/event-stream"), ChatBodies.OPENAI_STREAM));
		runner().withPropertyValues("llm.resilience.chains.chat=claude,gpt").run((context) -> {
			ChatModel chat = context.getBean("chatChatModel", ChatModel.class);
			List<ChatResponse> responses = chat.stream(new Prompt("Hi")).collectList().block(Duration.ofSeconds(30));
			assertThat(responses).isNotNull();
			assertThat(responses.stream()
				.filter((response) -> response.getResult() != null && response.getResult().getOutput() != null)
				.map((response) -> response.getResult().getOutput().getText())
				.filter((text) -> text != null)
				.reduce("", String::concat)).isEqualTo("Hello from gpt");
			assertThat(this.provider.requests("claude")).isEqualTo(1);
			assertThat(this.provider.requests("gpt")).isEqualTo(1);
		});
	}

	@Test
	void aStreamThatFailsAfterItsFirstTokenEndsInterruptedAndIsNotRestartedElsewhere() {
		this.provider.always("gpt", Reply.json(200, Map.of("content-type", "text/event-stream"),
				ChatBodies.OPENAI_STREAM_FIRST_TOKEN + ChatBodies.OPENAI_STREAM_ERROR));
		this.provider.always("claude",
				Reply.json(200, Map.of("content-type", "text/event-stream"), ChatBodies.ANTHROPIC_STREAM));
		run((chat) -> {
			List<String> texts = new java.util.concurrent.CopyOnWriteArrayList<>();
			Throwable error = chat.stream(new Prompt("Hi"))
				.doOnNext((response) -> texts.add(String.valueOf(response.getResult().getOutput().getText())))
				.then()
				.map(Object.class::cast)
				.onErrorResume(reactor.core.publisher.Mono::just)
				.cast(Throwable.class)
				.block(Duration.ofSeconds(30));
			assertThat(texts).contains("Hel");
			assertThat(error).isInstanceOf(LlmStreamInterruptedException.class);
			assertThat(this.provider.requests("gpt")).isEqualTo(1);
			assertThat(this.provider.requests("claude")).isZero();
		});
	}

	@Test
	void theRequestsOptionsAreCarriedOverAndTheTargetsModelReplacesTheRequestsModel() {
		this.provider.always("gpt", Reply.json(503, ChatBodies.OPENAI_SERVER_ERROR));
		this.provider.always("claude", Reply.ok(ChatBodies.ANTHROPIC_OK));
		run((chat) -> {
			chat.call(new Prompt("Hi", ChatOptions.builder().model("gpt-4o-mini").temperature(0.25).build()));
			assertThat(this.provider.lastBody("gpt")).contains("\"model\":\"gpt-4o\"").contains("0.25");
			assertThat(this.provider.lastBody("claude")).contains("\"model\":\"claude-sonnet-4\"").contains("0.25");
		});
	}

	@Test
	void theSdkRetriesUnderAProtectedChatModelAreOffUnlessTheApplicationKeepsThem() {
		runner().run((context) -> {
			assertThat(context.getBean(org.springframework.ai.model.openai.autoconfigure.OpenAiCommonProperties.class)
				.getMaxRetries()).isZero();
			assertThat(context
				.getBean(org.springframework.ai.model.anthropic.autoconfigure.AnthropicConnectionProperties.class)
				.getMaxRetries()).isZero();
		});
		runner().withPropertyValues("llm.resilience.spring-ai.sdk-retries-off=false").run((context) -> {
			assertThat(context.getBean(org.springframework.ai.model.openai.autoconfigure.OpenAiCommonProperties.class)
				.getMaxRetries()).isEqualTo(3);
		});
	}

	@Test
	void springAisRetryTemplateIsLeftWithoutRetriesWhenAChainProtectsAChatModel() {
		runner().withUserConfiguration(RetryProperties.class).run((context) -> {
			assertThat(context.getBean(SpringAiRetryProperties.class).getMaxAttempts()).isZero();
		});
		runner().withUserConfiguration(RetryProperties.class)
			.withPropertyValues("llm.resilience.spring-ai.sdk-retries-off=false")
			.run((context) -> assertThat(context.getBean(SpringAiRetryProperties.class).getMaxAttempts())
				.isEqualTo(10));
	}

	/**
	 * What Spring AI's retry auto-configuration binds, where spring-ai-retry is present.
	 */
	@EnableConfigurationProperties(SpringAiRetryProperties.class)
	static class RetryProperties {

	}

	@Test
	void aChainThatMixesTargetsWithAndWithoutAChatModelFailsAtStartupNamingTheProperty() {
		runner()
			.withPropertyValues("llm.resilience.targets.plain.provider=openai", "llm.resilience.chains.chat=gpt,plain")
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("llm.resilience.targets.plain.chat-model"));
	}

	@Test
	void aChatModelNameWithNoBeanFailsAtStartupNamingTheProperty() {
		runner().withPropertyValues("llm.resilience.targets.claude.chat-model=nosuchChatModel")
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("llm.resilience.targets.claude.chat-model")
				.hasStackTraceContaining("nosuchChatModel"));
	}

}
