package io.github.llmresilience.langchain4j;

import java.lang.reflect.Field;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import dev.langchain4j.model.anthropic.AnthropicChatModel;
import dev.langchain4j.model.anthropic.AnthropicStreamingChatModel;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import io.github.llmresilience.autoconfigure.LlmResilienceAutoConfiguration;
import io.github.llmresilience.autoconfigure.LlmResilienceLangChain4jAutoConfiguration;
import io.github.llmresilience.execute.Answer;
import io.github.llmresilience.execute.CallObserver;
import io.github.llmresilience.execute.LlmRejectedException;
import io.github.llmresilience.execute.LlmStreamInterruptedException;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.test.ChatBodies;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import io.github.llmresilience.test.ManualTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.scheduler.Scheduler;

import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The chain's LangChain4j models over real LangChain4j 1.19 OpenAI and Anthropic models
 * (their JDK HTTP client), pointed at an in-process fake provider speaking each vendor's
 * format. Requests are counted at the server, so every retry of LangChain4j's own would
 * show.
 */
@ExtendWith(OutputCaptureExtension.class)
class LangChain4jChatModelTests {

	static final String OPENAI_OK = """
			{"id":"chatcmpl-1","object":"chat.completion","created":1764547200,"model":"gpt-4o",
			"choices":[{"index":0,"message":{"role":"assistant","content":"Hello from gpt"},
			"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8}}""";

	static final String ANTHROPIC_OVERLOADED = """
			{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}""";

	static final String ANTHROPIC_STREAM_START = """
			event: message_start
			data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}}

			event: content_block_start
			data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

			event: content_block_delta
			data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}

			""";

	static final String ANTHROPIC_STREAM = ANTHROPIC_STREAM_START
			+ """
					event: content_block_delta
					data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lo from claude"}}

					event: content_block_stop
					data: {"type":"content_block_stop","index":0}

					event: message_delta
					data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":3}}

					event: message_stop
					data: {"type":"message_stop"}

					""";

	private final FakeProvider provider = new FakeProvider();

	private final ManualTime time = new ManualTime();

	@AfterEach
	void close() {
		this.provider.close();
	}

	private ApplicationContextRunner runner() {
		return plainRunner().withBean("llmResilienceClock", Clock.class, () -> this.time)
			// Timers on virtual time too; not a default candidate, so it is no second
			// Clock.
			.withBean("llmResilienceScheduler", Scheduler.class, () -> this.time.schedulerOnly(),
					(definition) -> ((AbstractBeanDefinition) definition).setDefaultCandidate(false));
	}

	/** The same on the system clock. */
	private ApplicationContextRunner plainRunner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LlmResilienceAutoConfiguration.class,
					LlmResilienceLangChain4jAutoConfiguration.class))
			.withBean("gptModel", ChatModel.class,
					() -> OpenAiChatModel.builder()
						.baseUrl(this.provider.baseUrl("gpt"))
						.apiKey("test-key")
						.modelName("gpt-4o")
						.build())
			.withBean("claudeModel", ChatModel.class,
					() -> AnthropicChatModel.builder()
						.baseUrl(this.provider.baseUrl("claude"))
						.apiKey("test-key")
						.modelName("claude-sonnet-4")
						.build())
			.withPropertyValues("llm.resilience.targets.gpt.provider=openai", "llm.resilience.targets.gpt.model=gpt-4o",
					"llm.resilience.targets.gpt.lc4j-chat-model=gptModel",
					"llm.resilience.targets.gpt.timeouts.attempt=2s",
					"llm.resilience.breaker.slow-call-duration=1500ms",
					"llm.resilience.targets.claude.provider=anthropic",
					"llm.resilience.targets.claude.model=claude-sonnet-4",
					"llm.resilience.targets.claude.lc4j-chat-model=claudeModel",
					"llm.resilience.chains.chat=gpt,claude", "llm.resilience.retry.max-attempts=1",
					"llm.resilience.breaker.minimum-calls=5", "llm.resilience.breaker.sliding-window-size=10");
	}

	/** The targets' streaming models instead of their chat models. */
	private ApplicationContextRunner streamingRunner() {
		return runner()
			.withBean("gptStreamingModel", StreamingChatModel.class,
					() -> OpenAiStreamingChatModel.builder()
						.baseUrl(this.provider.baseUrl("gpt"))
						.apiKey("test-key")
						.modelName("gpt-4o")
						.build())
			.withBean("claudeStreamingModel", StreamingChatModel.class,
					() -> AnthropicStreamingChatModel.builder()
						.baseUrl(this.provider.baseUrl("claude"))
						.apiKey("test-key")
						.modelName("claude-sonnet-4")
						.build())
			.withPropertyValues("llm.resilience.targets.gpt.lc4j-chat-model=gptStreamingModel",
					"llm.resilience.targets.claude.lc4j-chat-model=claudeStreamingModel",
					"llm.resilience.targets.gpt.timeouts.first-token=2s");
	}

	private void run(Consumer<ChatModel> test) {
		runner().run((context) -> {
			assertThat(context).hasNotFailed();
			test.accept(context.getBean("chatLc4jChatModel", ChatModel.class));
		});
	}

	@Test
	void theChainsChatModelIsABeanNamedForTheChainOverTheApplicationsModels() {
		runner().run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean("chatLc4jChatModel")).isInstanceOfSatisfying(ResilientChatModel.class,
					(model) -> assertThat(model.chain()).isEqualTo("chat"));
			assertThat(context).doesNotHaveBean("chatLc4jStreamingChatModel");
			// The only chain's model is the primary ChatModel.
			assertThat(context.getBean(ChatModel.class)).isSameAs(context.getBean("chatLc4jChatModel"));
			this.provider.always("gpt", Reply.ok(OPENAI_OK));
			assertThat(context.getBean("chatLc4jChatModel", ChatModel.class).chat("Hi")).isEqualTo("Hello from gpt");
			assertThat(this.provider.requests("gpt")).isEqualTo(1);
		});
	}

	@Test
	void aServerErrorIsOneRequestAndTheNextModelServes(CapturedOutput output) {
		this.provider.always("gpt", Reply.json(503, ChatBodies.OPENAI_SERVER_ERROR));
		this.provider.always("claude", Reply.ok(ChatBodies.ANTHROPIC_OK));
		run((chat) -> {
			assertThat(chat.chat("Hi")).isEqualTo("Hello from claude");
			// LangChain4j's own default would have sent 3.
			assertThat(this.provider.requests("gpt")).isEqualTo(1);
		});
		assertThat(output).contains("llm-resilience owns the retries of gptModel: LangChain4j's maxRetries set to 0"
				+ " (was 2); set llm.resilience.langchain4j.retries-off=false to keep them");
	}

	@Test
	void theModelsOwnRetriesAreKeptWhenTheApplicationSaysSo() {
		this.provider.always("gpt", Reply.json(400, ChatBodies.OPENAI_BAD_REQUEST));
		runner().withPropertyValues("llm.resilience.langchain4j.retries-off=false").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(maxRetries(context.getBean("gptModel"))).isEqualTo(2);
			assertThat(maxRetries(context.getBean("claudeModel"))).isEqualTo(2);
		});
		runner().run((context) -> {
			assertThat(maxRetries(context.getBean("gptModel"))).isEqualTo(0);
			assertThat(maxRetries(context.getBean("claudeModel"))).isEqualTo(0);
		});
	}

	private static Object maxRetries(Object model) throws ReflectiveOperationException {
		Field field = model.getClass().getDeclaredField("maxRetries");
		field.setAccessible(true);
		return field.get(model);
	}

	@Test
	void theTokensLangChain4jReadFromTheAnswerReachTheEngine() {
		this.provider.always("gpt", Reply.json(503, ChatBodies.OPENAI_SERVER_ERROR));
		this.provider.always("claude", Reply.ok(ChatBodies.ANTHROPIC_OK));
		List<String> told = new CopyOnWriteArrayList<>();
		runner().withBean(CallObserver.class, () -> new CallObserver() {
			@Override
			public void onAnswer(String chain, Target target, Answer answer) {
				told.add(target.name() + " " + answer.usage());
			}
		}).run((context) -> {
			assertThat(context.getBean("chatLc4jChatModel", ChatModel.class).chat("Hi")).isEqualTo("Hello from claude");
			assertThat(told).containsExactly("claude Usage[inputTokens=5, outputTokens=3]");
		});
	}

	@Test
	void duringAnOutageTheFailingModelGetsNoMoreThanMinimumCallsRequests() {
		this.provider.always("gpt", Reply.json(503, ChatBodies.OPENAI_SERVER_ERROR));
		this.provider.always("claude", Reply.ok(ChatBodies.ANTHROPIC_OK));
		run((chat) -> {
			for (int i = 0; i < 30; i++) {
				assertThat(chat.chat("Hi")).isEqualTo("Hello from claude");
			}
			assertThat(this.provider.requests("gpt")).isPositive().isLessThanOrEqualTo(5);
			assertThat(this.provider.requests("claude")).isEqualTo(30);
		});
	}

	@Test
	void anAnthropicOverloadIsClassifiedFromItsBodyAndTheNextModelServes() {
		this.provider.always("claude", Reply.json(529, ANTHROPIC_OVERLOADED));
		this.provider.always("gpt", Reply.ok(OPENAI_OK));
		runner().withPropertyValues("llm.resilience.chains.chat=claude,gpt").run((context) -> {
			ChatModel chat = context.getBean("chatLc4jChatModel", ChatModel.class);
			assertThat(chat.chat("Hi")).isEqualTo("Hello from gpt");
			assertThat(this.provider.requests("claude")).isEqualTo(1);
		});
	}

	@Test
	void insufficientQuotaIsOneRequest() {
		this.provider.always("gpt", Reply.json(429, ChatBodies.OPENAI_QUOTA));
		this.provider.always("claude", Reply.ok(ChatBodies.ANTHROPIC_OK));
		run((chat) -> {
			for (int i = 0; i < 5; i++) {
				assertThat(chat.chat("Hi")).isEqualTo("Hello from claude");
			}
			assertThat(this.provider.requests("gpt")).isEqualTo(1);
		});
	}

	@Test
	void aBadRequestIsOneRequestInTheWholeChain() {
		this.provider.always("gpt", Reply.json(400, ChatBodies.OPENAI_BAD_REQUEST));
		this.provider.always("claude", Reply.ok(ChatBodies.ANTHROPIC_OK));
		run((chat) -> {
			assertThatExceptionOfType(LlmRejectedException.class).isThrownBy(() -> chat.chat("Hi"));
			assertThat(this.provider.requests("gpt")).isEqualTo(1);
			assertThat(this.provider.requests("claude")).isZero();
		});
	}

	@Test
	void aHungModelIsLeftAtTheAttemptTimeout() {
		this.provider.always("gpt", Reply.hang());
		this.provider.always("claude", Reply.ok(ChatBodies.ANTHROPIC_OK));
		run((chat) -> {
			CompletableFuture<String> answer = CompletableFuture.supplyAsync(() -> chat.chat("Hi"));
			await().atMost(Duration.ofSeconds(30)).until(() -> this.provider.requests("gpt") == 1);
			this.time.advance(Duration.ofMillis(1999));
			assertThat(answer).isNotDone();
			this.time.advance(Duration.ofMillis(1));
			assertThat(answer.join()).isEqualTo("Hello from claude");
			assertThat(this.time.elapsed()).isEqualTo(Duration.ofSeconds(2));
			assertThat(this.provider.requests("gpt")).isEqualTo(1);
		});
	}

	@Test
	void onTheSystemClockAHungModelIsLeftAtAboutTheAttemptTimeout() {
		this.provider.always("gpt", Reply.hang());
		this.provider.always("claude", Reply.ok(ChatBodies.ANTHROPIC_OK));
		plainRunner()
			.withPropertyValues("llm.resilience.targets.gpt.timeouts.attempt=1s",
					"llm.resilience.breaker.slow-call-duration=800ms")
			.run((context) -> {
				ChatModel chat = context.getBean("chatLc4jChatModel", ChatModel.class);
				long start = System.nanoTime();
				assertThat(chat.chat("Hi")).isEqualTo("Hello from claude");
				Duration took = Duration.ofNanos(System.nanoTime() - start);
				// Not before the attempt timeout; long before LangChain4j's own 60 s.
				assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(900)).isLessThan(Duration.ofSeconds(30));
				assertThat(this.provider.requests("gpt")).isEqualTo(1);
			});
	}

	@Test
	void theRequestsParametersAreCarriedOverAndTheTargetsModelReplacesTheRequestsModel() {
		this.provider.always("gpt", Reply.json(503, ChatBodies.OPENAI_SERVER_ERROR));
		this.provider.always("claude", Reply.ok(ChatBodies.ANTHROPIC_OK));
		run((chat) -> {
			chat.chat(ChatRequest.builder()
				.messages(UserMessage.from("Hi"))
				.parameters(ChatRequestParameters.builder().modelName("gpt-4o-mini").temperature(0.25).build())
				.build());
			assertThat(this.provider.lastBody("gpt")).containsPattern("\"model\"\\s*:\\s*\"gpt-4o\"").contains("0.25");
			assertThat(this.provider.lastBody("claude")).containsPattern("\"model\"\\s*:\\s*\"claude-sonnet-4\"")
				.contains("0.25");
		});
	}

	@Test
	void aStreamThatFailsBeforeItsFirstTokenIsServedByTheNextModel() {
		this.provider.always("gpt", Reply.json(503, ChatBodies.OPENAI_SERVER_ERROR));
		this.provider.always("claude", Reply.json(200, Map.of("content-type", "text/event-stream"), ANTHROPIC_STREAM));
		streamingRunner().run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean("chatLc4jChatModel");
			Streamed streamed = stream(context.getBean("chatLc4jStreamingChatModel", StreamingChatModel.class));
			assertThat(streamed.error).isNull();
			assertThat(String.join("", streamed.partials)).isEqualTo("Hello from claude");
			assertThat(streamed.complete.aiMessage().text()).isEqualTo("Hello from claude");
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
		streamingRunner().withPropertyValues("llm.resilience.chains.chat=claude,gpt").run((context) -> {
			Streamed streamed = stream(context.getBean("chatLc4jStreamingChatModel", StreamingChatModel.class));
			assertThat(streamed.error).isNull();
			assertThat(String.join("", streamed.partials)).isEqualTo("Hello from gpt");
			assertThat(this.provider.requests("claude")).isEqualTo(1);
			assertThat(this.provider.requests("gpt")).isEqualTo(1);
		});
	}

	@Test
	void aStreamThatFailsAfterItsFirstTokenEndsInterruptedAndIsNotRestartedElsewhere() {
		this.provider.always("claude", Reply.json(200, Map.of("content-type", "text/event-stream"),
				ANTHROPIC_STREAM_START + ChatBodies.ANTHROPIC_STREAM_OVERLOADED));
		this.provider.always("gpt",
				Reply.json(200, Map.of("content-type", "text/event-stream"), ChatBodies.OPENAI_STREAM));
		streamingRunner().withPropertyValues("llm.resilience.chains.chat=claude,gpt").run((context) -> {
			Streamed streamed = stream(context.getBean("chatLc4jStreamingChatModel", StreamingChatModel.class));
			assertThat(streamed.partials).containsExactly("Hel");
			assertThat(streamed.error).isInstanceOf(LlmStreamInterruptedException.class);
			assertThat(this.provider.requests("claude")).isEqualTo(1);
			assertThat(this.provider.requests("gpt")).isZero();
		});
	}

	@Test
	void aStreamWithoutAFirstTokenIsLeftAtTheFirstTokenTimeoutAndTheNextModelServes() {
		FakeProvider.Stream stalled = new FakeProvider.Stream();
		this.provider.always("gpt", Reply.stream(stalled));
		this.provider.always("claude", Reply.json(200, Map.of("content-type", "text/event-stream"), ANTHROPIC_STREAM));
		streamingRunner().run((context) -> {
			Streamed streamed = new Streamed();
			context.getBean("chatLc4jStreamingChatModel", StreamingChatModel.class).chat("Hi", streamed);
			await().atMost(Duration.ofSeconds(30)).until(() -> this.provider.requests("gpt") == 1);
			this.time.advance(Duration.ofMillis(1999));
			assertThat(this.provider.requests("claude")).isZero();
			assertThat(streamed.partials).isEmpty();
			this.time.advance(Duration.ofMillis(1));
			streamed.await();
			assertThat(streamed.error).isNull();
			assertThat(String.join("", streamed.partials)).isEqualTo("Hello from claude");
			assertThat(this.time.elapsed()).isEqualTo(Duration.ofSeconds(2));
			assertThat(this.provider.requests("gpt")).isEqualTo(1);
		});
	}

	private static Streamed stream(StreamingChatModel model) {
		Streamed streamed = new Streamed();
		model.chat("Hi", streamed);
		return streamed.await();
	}

	/** What a caller's handler was told. */
	static final class Streamed implements StreamingChatResponseHandler {

		final List<String> partials = new CopyOnWriteArrayList<>();

		volatile ChatResponse complete;

		volatile Throwable error;

		private final CompletableFuture<Void> done = new CompletableFuture<>();

		@Override
		public void onPartialResponse(String partial) {
			this.partials.add(partial);
		}

		@Override
		public void onCompleteResponse(ChatResponse response) {
			this.complete = response;
			this.done.complete(null);
		}

		@Override
		public void onError(Throwable error) {
			this.error = error;
			this.done.complete(null);
		}

		Streamed await() {
			this.done.orTimeout(30, TimeUnit.SECONDS).join();
			return this;
		}

	}

	@Test
	void withoutLangChain4jOnTheClasspathNothingIsRegisteredAndTheLc4jPropertyIsIgnored() {
		new ApplicationContextRunner().withClassLoader(new FilteredClassLoader("dev.langchain4j"))
			.withConfiguration(AutoConfigurations.of(LlmResilienceAutoConfiguration.class,
					LlmResilienceLangChain4jAutoConfiguration.class))
			.withPropertyValues("llm.resilience.targets.gpt.provider=openai",
					"llm.resilience.targets.gpt.lc4j-chat-model=gptModel", "llm.resilience.chains.chat=gpt")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean("chatLc4jChatModel");
				assertThat(context).doesNotHaveBean(ModelRetriesOff.class);
			});
	}

	@Test
	void aChainThatMixesTargetsWithAndWithoutAModelFailsAtStartupNamingTheProperty() {
		runner()
			.withPropertyValues("llm.resilience.targets.plain.provider=openai", "llm.resilience.chains.chat=gpt,plain")
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("llm.resilience.targets.plain.lc4j-chat-model"));
	}

	@Test
	void aModelNameWithNoBeanFailsAtStartupNamingTheProperty() {
		runner().withPropertyValues("llm.resilience.targets.claude.lc4j-chat-model=nosuchModel")
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("llm.resilience.targets.claude.lc4j-chat-model")
				.hasStackTraceContaining("nosuchModel"));
	}

	@Test
	void aChainThatMixesChatAndStreamingModelsFailsAtStartupNamingTheChain() {
		streamingRunner().withPropertyValues("llm.resilience.targets.claude.lc4j-chat-model=claudeModel")
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("llm.resilience.chains.chat")
				.hasStackTraceContaining("all LangChain4j ChatModel beans, or all StreamingChatModel beans"));
	}

}
