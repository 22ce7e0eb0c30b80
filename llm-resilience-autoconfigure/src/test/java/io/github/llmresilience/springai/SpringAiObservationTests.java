package io.github.llmresilience.springai;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.llmresilience.autoconfigure.LlmResilienceAutoConfiguration;
import io.github.llmresilience.autoconfigure.LlmResilienceObservationAutoConfiguration;
import io.github.llmresilience.autoconfigure.LlmResilienceSpringAiAutoConfiguration;
import io.github.llmresilience.observation.LlmObservations;
import io.github.llmresilience.test.ChatBodies;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.model.anthropic.autoconfigure.AnthropicChatAutoConfiguration;
import org.springframework.ai.model.openai.autoconfigure.OpenAiChatAutoConfiguration;
import org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A failover through the chain's ChatModel, traced: Spring AI's own
 * {@code gen_ai.client.operation} observation of each provider request is the child of
 * the attempt that sent it, and the attempts the children of the one call; one trace
 * shows the failover and each provider call. Real Spring AI 2.0.1 chat models on their
 * SDKs, the fake provider speaking each vendor's format, Micrometer's test registry as
 * the application's {@link ObservationRegistry}.
 */
class SpringAiObservationTests {

	private static final String GEN_AI = "gen_ai.client.operation";

	private final FakeProvider provider = new FakeProvider();

	private final TestObservationRegistry registry = TestObservationRegistry.create();

	private final List<Observation.Context> started = new CopyOnWriteArrayList<>();

	SpringAiObservationTests() {
		this.registry.observationConfig().observationHandler(new ObservationHandler<>() {
			@Override
			public void onStart(Observation.Context context) {
				SpringAiObservationTests.this.started.add(context);
			}

			@Override
			public boolean supportsContext(Observation.Context context) {
				return true;
			}
		});
	}

	@AfterEach
	void close() {
		this.provider.close();
	}

	private ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(ToolCallingAutoConfiguration.class, OpenAiChatAutoConfiguration.class,
							AnthropicChatAutoConfiguration.class, LlmResilienceObservationAutoConfiguration.class,
							LlmResilienceAutoConfiguration.class, LlmResilienceSpringAiAutoConfiguration.class))
			.withBean(ObservationRegistry.class, () -> this.registry)
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

	private List<Observation.Context> named(String name) {
		return this.started.stream().filter((context) -> name.equals(context.getName())).toList();
	}

	private static String low(Observation.Context context, String key) {
		return context.getLowCardinalityKeyValue(key).getValue();
	}

	@Test
	void eachProviderRequestOfAFailoverIsTheChildOfItsAttemptAndTheAttemptsOfTheOneCall() {
		this.provider.always("gpt", Reply.json(503, ChatBodies.OPENAI_SERVER_ERROR));
		this.provider.always("claude", Reply.ok(ChatBodies.ANTHROPIC_OK));
		runner().run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean("chatChatModel", ChatModel.class).call("Hi")).isEqualTo("Hello from claude");

			List<Observation.Context> calls = named(LlmObservations.CALL);
			assertThat(calls).singleElement()
				.satisfies((call) -> assertThat(low(call, LlmObservations.SERVED_BY)).isEqualTo("claude"));
			List<Observation.Context> attempts = named(LlmObservations.ATTEMPT);
			assertThat(attempts).extracting((attempt) -> low(attempt, LlmObservations.TARGET))
				.containsExactly("gpt", "claude");
			assertThat(attempts).extracting((attempt) -> low(attempt, LlmObservations.VERDICT))
				.containsExactly("availability", "success");
			assertThat(attempts).allSatisfy(
					(attempt) -> assertThat(attempt.getParentObservation().getContextView()).isSameAs(calls.get(0)));
			List<Observation.Context> providerCalls = named(GEN_AI);
			assertThat(providerCalls).hasSize(2);
			for (int i = 0; i < 2; i++) {
				assertThat(providerCalls.get(i).getParentObservation()).isNotNull();
				assertThat(providerCalls.get(i).getParentObservation().getContextView()).isSameAs(attempts.get(i));
			}
			// Spring AI's own name for the provider, on the attempt too.
			assertThat(low(providerCalls.get(0), "gen_ai.system")).isEqualTo("openai");
			assertThat(low(attempts.get(0), LlmObservations.GEN_AI_SYSTEM)).isEqualTo("openai");
			assertThat(low(attempts.get(0), LlmObservations.GEN_AI_PROVIDER)).isEqualTo("openai");
			assertThat(low(providerCalls.get(1), "gen_ai.system")).isEqualTo("anthropic");
			assertThat(low(attempts.get(1), LlmObservations.GEN_AI_SYSTEM)).isEqualTo("anthropic");
			TestObservationRegistryAssert.assertThat(this.registry).doesNotHaveAnyRemainingCurrentObservation();
		});
	}

}
