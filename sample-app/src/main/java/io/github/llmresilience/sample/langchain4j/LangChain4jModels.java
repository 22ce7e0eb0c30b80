package io.github.llmresilience.sample.langchain4j;

import dev.langchain4j.model.anthropic.AnthropicChatModel;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * LangChain4j's OpenAI and Anthropic chat models as an application builds them, with
 * LangChain4j's defaults (60 s timeout, 2 retries); the targets name them
 * ({@code lc4j-chat-model}), so llm-resilience serves each chain's
 * {@code <chain>Lc4jChatModel} through them and sets their retries to 0.
 */
@Configuration(proxyBeanMethods = false)
class LangChain4jModels {

	@Bean
	ChatModel primaryLc4jModel(@Value("${sample.langchain4j.openai-base-url}") String baseUrl,
			@Value("${sample.langchain4j.openai-api-key:simulated}") String apiKey) {
		return OpenAiChatModel.builder().baseUrl(baseUrl).apiKey(apiKey).modelName("gpt-4o").build();
	}

	@Bean
	ChatModel secondaryLc4jModel(@Value("${sample.langchain4j.anthropic-base-url}") String baseUrl,
			@Value("${sample.langchain4j.anthropic-api-key:simulated}") String apiKey) {
		return AnthropicChatModel.builder().baseUrl(baseUrl).apiKey(apiKey).modelName("claude-sonnet").build();
	}

}
