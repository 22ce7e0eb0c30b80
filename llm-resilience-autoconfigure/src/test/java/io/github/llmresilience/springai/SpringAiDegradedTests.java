package io.github.llmresilience.springai;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.github.llmresilience.autoconfigure.LlmResilienceAutoConfiguration;
import io.github.llmresilience.autoconfigure.LlmResilienceSpringAiAutoConfiguration;
import io.github.llmresilience.execute.Degradation;
import io.github.llmresilience.execute.LlmFallback;
import io.github.llmresilience.execute.LlmRejectedException;
import io.github.llmresilience.execute.LlmUnavailableException;
import io.github.llmresilience.test.ChatBodies;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import io.github.llmresilience.test.ManualTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Scheduler;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.anthropic.autoconfigure.AnthropicChatAutoConfiguration;
import org.springframework.ai.model.openai.autoconfigure.OpenAiChatAutoConfiguration;
import org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The chain's Spring AI ChatModel with a chain fallback
 * ({@code llm.resilience.fallbacks.chat}), over real Spring AI chat models and an
 * in-process fake provider: when neither model can serve, the fallback answers and the
 * response says it is degraded; a rejection still reaches the caller; a fallback that is
 * missing or of the wrong type stops the application at startup, naming the property.
 */
class SpringAiDegradedTests {

	private static final String ANTHROPIC_SERVER_ERROR = """
			{"type":"error","error":{"type":"api_error","message":"Internal server error"}}""";

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
			.withBean("llmResilienceScheduler", Scheduler.class, () -> this.time.schedulerOnly(),
					(definition) -> ((AbstractBeanDefinition) definition).setDefaultCandidate(false))
			.withPropertyValues("spring.ai.openai.api-key=test-key",
					"spring.ai.openai.base-url=" + this.provider.baseUrl("gpt"), "spring.ai.anthropic.api-key=test-key",
					"spring.ai.anthropic.base-url=" + this.provider.baseUrl("claude"),
					"llm.resilience.targets.gpt.provider=openai", "llm.resilience.targets.gpt.model=gpt-4o",
					"llm.resilience.targets.gpt.chat-model=openAiChatModel",
					"llm.resilience.targets.claude.provider=anthropic",
					"llm.resilience.targets.claude.model=claude-sonnet-4",
					"llm.resilience.targets.claude.chat-model=anthropicChatModel",
					"llm.resilience.chains.chat=gpt,claude", "llm.resilience.retry.max-attempts=1");
	}

	private ApplicationContextRunner withCachedAnswers() {
		return runner().withUserConfiguration(CachedAnswers.class)
			.withPropertyValues("llm.resilience.fallbacks.chat=cachedAnswers");
	}

	private void bothDown() {
		this.provider.always("gpt", Reply.json(503, ChatBodies.OPENAI_SERVER_ERROR));
		this.provider.always("claude", Reply.json(503, ANTHROPIC_SERVER_ERROR));
	}

	@Test
	void whenNeitherModelCanServeTheChainsFallbackAnswersAndTheResponseSaysItIsDegraded() {
		bothDown();
		withCachedAnswers().run((context) -> {
			assertThat(context).hasNotFailed();
			ChatModel chat = context.getBean("chatChatModel", ChatModel.class);

			ChatResponse response = chat.call(new Prompt("Hi"));

			assertThat(response.getResult().getOutput().getText()).isEqualTo("The last answer we had");
			assertThat((Boolean) response.getMetadata().get(ResilientChatModel.DEGRADED)).isTrue();
			assertThat((String) response.getMetadata().get(ResilientChatModel.SERVED_BY)).isEqualTo("degraded");
			CachedAnswers fallback = context.getBean(CachedAnswers.class);
			Degradation degradation = fallback.told.get();
			assertThat(degradation.chain()).isEqualTo("chat");
			assertThat(degradation.unavailable().steps()).extracting((step) -> step.target())
				.containsExactly("gpt", "claude");
			assertThat((Instant) response.getMetadata().get(ResilientChatModel.RETRY_AFTER))
				.isEqualTo(degradation.retryAfter());
			assertThat(this.provider.requests("gpt")).isEqualTo(1);
			assertThat(this.provider.requests("claude")).isEqualTo(1);
		});
	}

	@Test
	void aModelThatServesIsNotDegraded() {
		this.provider.always("gpt", Reply.ok(ChatBodies.OPENAI_OK));
		withCachedAnswers().run((context) -> {
			ChatResponse response = context.getBean("chatChatModel", ChatModel.class).call(new Prompt("Hi"));
			assertThat(response.getResult().getOutput().getText()).isEqualTo("Hello from gpt");
			assertThat(response.getMetadata().containsKey(ResilientChatModel.DEGRADED)).isFalse();
			assertThat(context.getBean(CachedAnswers.class).asked).hasValue(0);
		});
	}

	@Test
	void aStreamNeitherModelCanStartIsTheFallbacksOneDegradedResponse() {
		bothDown();
		withCachedAnswers().run((context) -> {
			List<ChatResponse> responses = context.getBean("chatChatModel", ChatModel.class)
				.stream(new Prompt("Hi"))
				.collectList()
				.block(Duration.ofSeconds(30));
			assertThat(responses).singleElement().satisfies((response) -> {
				assertThat(response.getResult().getOutput().getText()).isEqualTo("The last answer we had");
				assertThat((Boolean) response.getMetadata().get(ResilientChatModel.DEGRADED)).isTrue();
			});
		});
	}

	@Test
	void aBadRequestReachesTheCallerAndTheFallbackIsNotAsked() {
		this.provider.always("gpt", Reply.json(400, ChatBodies.OPENAI_BAD_REQUEST));
		withCachedAnswers().run((context) -> {
			ChatModel chat = context.getBean("chatChatModel", ChatModel.class);
			assertThatExceptionOfType(LlmRejectedException.class).isThrownBy(() -> chat.call(new Prompt("Hi")));
			assertThat(context.getBean(CachedAnswers.class).asked).hasValue(0);
		});
	}

	@Test
	void withoutAFallbackNoModelServingIsUnavailable() {
		bothDown();
		runner().run((context) -> assertThatExceptionOfType(LlmUnavailableException.class)
			.isThrownBy(() -> context.getBean("chatChatModel", ChatModel.class).call(new Prompt("Hi"))));
	}

	@Test
	void aFallbackNameWithNoBeanFailsAtStartupNamingTheProperty() {
		runner().withPropertyValues("llm.resilience.fallbacks.chat=noSuchFallback")
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("llm.resilience.fallbacks.chat")
				.hasStackTraceContaining("noSuchFallback")
				.hasStackTraceContaining("must name an LlmFallback<ChatResponse> bean"));
	}

	@Test
	void aFallbackOfAnotherAnswerTypeFailsAtStartupNamingThePropertyAndTheBeansType() {
		runner().withUserConfiguration(TextFallback.class)
			.withPropertyValues("llm.resilience.fallbacks.chat=textFallback")
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("llm.resilience.fallbacks.chat")
				.hasStackTraceContaining("must name an LlmFallback<ChatResponse> bean")
				.hasStackTraceContaining("LlmFallback<java.lang.String>"));
	}

	@Test
	void aFallbackForAChainWithoutChatModelsFailsAtStartupNamingTheProperty() {
		runner().withUserConfiguration(CachedAnswers.class)
			.withPropertyValues("llm.resilience.targets.plain.provider=openai", "llm.resilience.chains.jobs=plain",
					"llm.resilience.fallbacks.jobs=cachedAnswers")
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("llm.resilience.fallbacks.jobs")
				.hasStackTraceContaining("names a chat-model"));
	}

	@Configuration(proxyBeanMethods = false)
	static class CachedAnswers {

		final AtomicInteger asked = new AtomicInteger();

		final AtomicReference<Degradation> told = new AtomicReference<>();

		@Bean
		LlmFallback<ChatResponse> cachedAnswers() {
			return (degradation) -> {
				this.asked.incrementAndGet();
				this.told.set(degradation);
				return new ChatResponse(List.of(new Generation(new AssistantMessage("The last answer we had"))));
			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TextFallback {

		@Bean
		LlmFallback<String> textFallback() {
			return (degradation) -> "text";
		}

	}

}
