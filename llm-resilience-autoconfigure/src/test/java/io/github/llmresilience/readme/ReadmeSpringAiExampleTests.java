package io.github.llmresilience.readme;

import io.github.llmresilience.autoconfigure.LlmResilienceAutoConfiguration;
import io.github.llmresilience.autoconfigure.LlmResilienceSpringAiAutoConfiguration;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.model.anthropic.autoconfigure.AnthropicChatAutoConfiguration;
import org.springframework.ai.model.chat.client.autoconfigure.ChatClientAutoConfiguration;
import org.springframework.ai.model.openai.autoconfigure.OpenAiChatAutoConfiguration;
import org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * README.md's "Spring AI" section as written: its yml (in properties form) and its
 * {@code ChatClient} bean, in a Boot context with Spring AI's own auto-configuration, the
 * primary target down.
 */
class ReadmeSpringAiExampleTests {

	private static final String ANTHROPIC_OK = "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\","
			+ "\"model\":\"claude-sonnet-4\",\"content\":[{\"type\":\"text\",\"text\":\"Hello from claude\"}],"
			+ "\"stop_reason\":\"end_turn\",\"stop_sequence\":null,\"usage\":{\"input_tokens\":5,\"output_tokens\":3}}";

	@Configuration(proxyBeanMethods = false)
	static class Application {

		// As in README.md:
		@Bean
		ChatClient chatClient(@Qualifier("chatChatModel") ChatModel chatModel) {
			return ChatClient.builder(chatModel).build();
		}

	}

	@Test
	void theChatClientOfTheReadmeFailsOverAndSpringAisOwnBuilderIsOnTheChainToo() {
		try (FakeProvider provider = new FakeProvider()) {
			provider.always("gpt", Reply.json(503, FakeProvider.OPENAI_503));
			provider.always("claude", Reply.ok(ANTHROPIC_OK));
			new ApplicationContextRunner()
				.withConfiguration(
						AutoConfigurations.of(ToolCallingAutoConfiguration.class, OpenAiChatAutoConfiguration.class,
								AnthropicChatAutoConfiguration.class, ChatClientAutoConfiguration.class,
								LlmResilienceAutoConfiguration.class, LlmResilienceSpringAiAutoConfiguration.class))
				.withUserConfiguration(Application.class)
				.withPropertyValues("spring.ai.openai.api-key=sk-test",
						"spring.ai.openai.base-url=" + provider.baseUrl("gpt"), "spring.ai.anthropic.api-key=sk-test",
						"spring.ai.anthropic.base-url=" + provider.baseUrl("claude"),
						"llm.resilience.targets.gpt.provider=openai", "llm.resilience.targets.gpt.model=gpt-4o",
						"llm.resilience.targets.gpt.chat-model=openAiChatModel",
						"llm.resilience.targets.claude.provider=anthropic",
						"llm.resilience.targets.claude.model=claude-sonnet-4",
						"llm.resilience.targets.claude.chat-model=anthropicChatModel",
						"llm.resilience.chains.chat=gpt,claude")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					ChatClient chat = context.getBean(ChatClient.class);
					assertThat(chat.prompt().user("Hi").call().content()).isEqualTo("Hello from claude");
					assertThat(context.getBean(ChatClient.Builder.class).build().prompt().user("Hi").call().content())
						.isEqualTo("Hello from claude");
					// At most retry.max-attempts (3) requests per call to the failing
					// model,
					// none of the SDK's own on top (they would make it 4 times as many).
					assertThat(provider.requests("gpt")).isBetween(2, 6);
					assertThat(provider.requests("claude")).isEqualTo(2);
				});
		}
	}

}
