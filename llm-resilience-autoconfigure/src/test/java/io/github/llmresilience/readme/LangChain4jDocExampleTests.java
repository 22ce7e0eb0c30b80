package io.github.llmresilience.readme;

import dev.langchain4j.model.anthropic.AnthropicChatModel;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import dev.langchain4j.service.AiServices;
import io.github.llmresilience.autoconfigure.LlmResilienceAutoConfiguration;
import io.github.llmresilience.autoconfigure.LlmResilienceLangChain4jAutoConfiguration;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/langchain4j.md's "What you write" as written: the application's two LangChain4j
 * models, its yml (in properties form), and an AI service over the chain's model, against
 * a fake provider whose OpenAI target is in an outage.
 */
class LangChain4jDocExampleTests {

	private final FakeProvider provider = new FakeProvider();

	@AfterEach
	void close() {
		this.provider.close();
	}

	// As in docs/langchain4j.md:
	@Configuration(proxyBeanMethods = false)
	static class Models {

		@Bean
		ChatModel gptModel(@Value("${openai.base-url:https://api.openai.com/v1}") String baseUrl,
				@Value("${openai.api-key}") String apiKey) {
			return OpenAiChatModel.builder().baseUrl(baseUrl).apiKey(apiKey).modelName("gpt-4o").build();
		}

		@Bean
		ChatModel claudeModel(@Value("${anthropic.base-url:https://api.anthropic.com/v1/}") String baseUrl,
				@Value("${anthropic.api-key}") String apiKey) {
			return AnthropicChatModel.builder().baseUrl(baseUrl).apiKey(apiKey).modelName("claude-sonnet-4").build();
		}

	}

	interface Assistant {

		String chat(String question);

	}

	@Configuration(proxyBeanMethods = false)
	static class Assistants {

		@Bean
		Assistant assistant(@Qualifier("chatLc4jChatModel") ChatModel chatModel) {
			return AiServices.create(Assistant.class, chatModel);
		}

	}

	@Test
	void theAssistantIsServedThroughTheChainWhileGptIsInAnOutage() {
		this.provider.always("gpt", Reply.json(503, LangChain4jBodies.OPENAI_SERVER_ERROR));
		this.provider.always("claude", Reply.ok(LangChain4jBodies.ANTHROPIC_OK));
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LlmResilienceAutoConfiguration.class,
					LlmResilienceLangChain4jAutoConfiguration.class))
			.withUserConfiguration(Models.class, Assistants.class)
			.withPropertyValues("openai.base-url=" + this.provider.baseUrl("gpt"), "openai.api-key=test-key",
					"anthropic.base-url=" + this.provider.baseUrl("claude"), "anthropic.api-key=test-key",
					"llm.resilience.targets.gpt.provider=openai", "llm.resilience.targets.gpt.model=gpt-4o",
					"llm.resilience.targets.gpt.lc4j-chat-model=gptModel",
					"llm.resilience.targets.claude.provider=anthropic",
					"llm.resilience.targets.claude.model=claude-sonnet-4",
					"llm.resilience.targets.claude.lc4j-chat-model=claudeModel",
					"llm.resilience.chains.chat=gpt,claude")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Assistant assistant = context.getBean(Assistant.class);
				assertThat(assistant.chat("Hi")).isEqualTo("Hello from claude");
				// The starter's own three attempts on gpt (retry.max-attempts), one
				// request
				// each: with LangChain4j's own two retries under each, nine.
				assertThat(this.provider.requests("gpt")).isEqualTo(3);
				assertThat(this.provider.requests("claude")).isEqualTo(1);
			});
	}

	/** What the OpenAI and Anthropic APIs answer. */
	static final class LangChain4jBodies {

		static final String OPENAI_SERVER_ERROR = "{\"error\":{\"message\":\"The server had an error while processing"
				+ " your request.\",\"type\":\"server_error\",\"param\":null,\"code\":null}}";

		static final String ANTHROPIC_OK = "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\","
				+ "\"model\":\"claude-sonnet-4\",\"content\":[{\"type\":\"text\",\"text\":\"Hello from claude\"}],"
				+ "\"stop_reason\":\"end_turn\",\"stop_sequence\":null,\"usage\":{\"input_tokens\":5,\"output_tokens\":3}}";

		private LangChain4jBodies() {
		}

	}

}
