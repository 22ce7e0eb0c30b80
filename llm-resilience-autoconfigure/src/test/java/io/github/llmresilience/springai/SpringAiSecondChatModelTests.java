package io.github.llmresilience.springai;

import io.github.llmresilience.autoconfigure.LlmResilienceAutoConfiguration;
import io.github.llmresilience.autoconfigure.LlmResilienceSpringAiAutoConfiguration;
import io.github.llmresilience.test.ChatBodies;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.model.openai.autoconfigure.OpenAiChatAutoConfiguration;
import org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiChatOptions;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/spring-ai.md's "A second chat model of the same vendor": the two-model example as
 * written, failing over from Spring AI's {@code openAiChatModel} to the application's
 * {@code backupChatModel}; and the trap it avoids (the same bean declared with the return
 * type {@code OpenAiChatModel} switches Spring AI's own model off), whose start-up
 * failure names the cause.
 */
class SpringAiSecondChatModelTests {

	private final FakeProvider provider = new FakeProvider();

	@AfterEach
	void close() {
		this.provider.close();
	}

	// As in docs/spring-ai.md:
	@Configuration(proxyBeanMethods = false)
	static class TwoModels {

		@Bean
		ChatModel backupChatModel(@Value("${backup.openai.base-url}") String baseUrl,
				@Value("${backup.openai.api-key}") String apiKey) {
			return OpenAiChatModel.builder()
				.options(OpenAiChatOptions.builder()
					.baseUrl(baseUrl)
					.apiKey(apiKey)
					.model("gpt-4o")
					// One owner of retries: the chain's.
					.maxRetries(0)
					.build())
				.build();
		}

	}

	// The trap: the same bean with the return type OpenAiChatModel.
	@Configuration(proxyBeanMethods = false)
	static class SecondModelReplacingTheFirst {

		@Bean
		OpenAiChatModel backupChatModel(@Value("${backup.openai.base-url}") String baseUrl) {
			return OpenAiChatModel.builder()
				.options(OpenAiChatOptions.builder().baseUrl(baseUrl).apiKey("sk-backup").model("gpt-4o").build())
				.build();
		}

	}

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(ToolCallingAutoConfiguration.class, OpenAiChatAutoConfiguration.class,
							LlmResilienceAutoConfiguration.class, LlmResilienceSpringAiAutoConfiguration.class))
			.withPropertyValues("spring.ai.openai.api-key=sk-test",
					"spring.ai.openai.base-url=" + this.provider.baseUrl("primary"),
					"backup.openai.base-url=" + this.provider.baseUrl("backup"), "backup.openai.api-key=sk-backup",
					"llm.resilience.targets.primary.provider=openai", "llm.resilience.targets.primary.model=gpt-4o",
					"llm.resilience.targets.primary.region=us", "llm.resilience.targets.primary.account=prod",
					"llm.resilience.targets.primary.chat-model=openAiChatModel",
					"llm.resilience.targets.backup.provider=openai", "llm.resilience.targets.backup.model=gpt-4o",
					"llm.resilience.targets.backup.region=eu", "llm.resilience.targets.backup.account=backup",
					"llm.resilience.targets.backup.chat-model=backupChatModel",
					"llm.resilience.chains.chat=primary,backup", "llm.resilience.retry.max-attempts=1");
	}

	@Test
	void aSecondModelDeclaredAsChatModelKeepsSpringAisOwnAndTheChainFailsOverToIt() {
		this.provider.always("primary", Reply.json(503, FakeProvider.OPENAI_503));
		this.provider.always("backup", Reply.ok(ChatBodies.OPENAI_OK));
		runner().withUserConfiguration(TwoModels.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean("openAiChatModel")).isInstanceOf(OpenAiChatModel.class);
			assertThat(context.getBean("backupChatModel")).isInstanceOf(OpenAiChatModel.class);
			assertThat(context.getBean("chatChatModel", ChatModel.class).call("Hi")).isEqualTo("Hello from gpt");
			assertThat(this.provider.requests("primary")).isEqualTo(1);
			assertThat(this.provider.requests("backup")).isEqualTo(1);
		});
	}

	@Test
	void aSecondModelDeclaredAsOpenAiChatModelFailsStartUpNamingTheCause() {
		runner().withUserConfiguration(SecondModelReplacingTheFirst.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("llm.resilience.targets.primary.chat-model")
				.hasMessageContaining("'openAiChatModel'")
				.hasMessageContaining("must name a Spring AI ChatModel bean")
				.hasMessageContaining("Spring AI's auto-configured 'openAiChatModel' backs off when the application "
						+ "declares its own OpenAiChatModel bean, and 'backupChatModel' is one")
				.hasMessageContaining("@Bean ChatModel backupChatModel()");
		});
	}

	@Test
	void aChatModelNameWithNoBeanListsTheChatModelsThereAre() {
		runner().withUserConfiguration(TwoModels.class)
			.withPropertyValues("llm.resilience.targets.backup.chat-model=backupModel")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.hasMessageContaining("llm.resilience.targets.backup.chat-model")
					.hasMessageContaining("the ChatModel beans are backupChatModel, openAiChatModel");
			});
	}

}
