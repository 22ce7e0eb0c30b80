package io.github.llmresilience.sample.drill;

import java.util.Map;
import java.util.function.Function;

import io.github.llmresilience.autoconfigure.LlmResilienceProperties;
import io.github.llmresilience.sample.answers.Answer;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.stereotype.Component;

/**
 * The Spring AI and LangChain4j clients of the drills: a chain's {@code ChatModel} bean,
 * or a target's own chat model called directly. Which target answered is read from the
 * model the response names.
 */
@Component
public class DrillClients {

	private final BeanFactory beans;

	private final Map<String, LlmResilienceProperties.TargetProperties> targets;

	public DrillClients(BeanFactory beans, LlmResilienceProperties properties) {
		this.beans = beans;
		this.targets = properties.getTargets();
	}

	/** Calls through the chain's {@code <chain>ChatModel}. */
	Function<String, Mono<Answer>> chain(String chain) {
		return answerer(this.beans.getBean(chain + "ChatModel", ChatModel.class), null);
	}

	/**
	 * Calls the target's own Spring AI chat model, as an application without
	 * llm-resilience.
	 */
	Function<String, Mono<Answer>> plain(String target) {
		LlmResilienceProperties.TargetProperties settings = this.targets.get(target);
		String bean = (settings != null) ? settings.getChatModel() : null;
		if (settings == null || bean == null) {
			throw new IllegalStateException("llm.resilience.targets." + target + ".chat-model is not set");
		}
		return answerer(this.beans.getBean(bean, ChatModel.class), settings.getModel());
	}

	/** Calls through the chain's LangChain4j {@code <chain>Lc4jChatModel}. */
	Function<String, Mono<Answer>> langChain4jChain(String chain) {
		return langChain4jAnswerer(
				this.beans.getBean(chain + "Lc4jChatModel", dev.langchain4j.model.chat.ChatModel.class));
	}

	/**
	 * Calls the target's own LangChain4j chat model, as an application without
	 * llm-resilience.
	 */
	Function<String, Mono<Answer>> langChain4jPlain(String target) {
		LlmResilienceProperties.TargetProperties settings = this.targets.get(target);
		String bean = (settings != null) ? settings.getLc4jChatModel() : null;
		if (settings == null || bean == null) {
			throw new IllegalStateException("llm.resilience.targets." + target + ".lc4j-chat-model is not set");
		}
		return langChain4jAnswerer(this.beans.getBean(bean, dev.langchain4j.model.chat.ChatModel.class));
	}

	private Function<String, Mono<Answer>> langChain4jAnswerer(dev.langchain4j.model.chat.ChatModel chatModel) {
		return (question) -> Mono
			.fromCallable(() -> chatModel.chat(dev.langchain4j.model.chat.request.ChatRequest.builder()
				.messages(dev.langchain4j.data.message.UserMessage.from(question))
				.build()))
			.subscribeOn(Schedulers.boundedElastic())
			.map((response) -> new Answer(String.valueOf(response.aiMessage().text()), servedBy(response.modelName())));
	}

	private Function<String, Mono<Answer>> answerer(ChatModel chatModel, @Nullable String model) {
		return (question) -> Mono.fromCallable(() -> chatModel.call(prompt(chatModel, question, model)))
			.subscribeOn(Schedulers.boundedElastic())
			.map((response) -> new Answer(text(response), servedBy(response)));
	}

	/** Spring AI's chat models take their own options type only. */
	private static Prompt prompt(ChatModel chatModel, String question, @Nullable String model) {
		return (model != null) ? new Prompt(question, chatModel.getDefaultOptions().mutate().model(model).build())
				: new Prompt(question);
	}

	private static String text(ChatResponse response) {
		String text = response.getResult().getOutput().getText();
		return (text != null) ? text : "";
	}

	private String servedBy(ChatResponse response) {
		return servedBy(response.getMetadata().getModel());
	}

	private String servedBy(@Nullable String model) {
		return this.targets.entrySet()
			.stream()
			.filter((entry) -> entry.getValue().getModel().equals(model))
			.map(Map.Entry::getKey)
			.findFirst()
			.orElse(String.valueOf(model));
	}

}
