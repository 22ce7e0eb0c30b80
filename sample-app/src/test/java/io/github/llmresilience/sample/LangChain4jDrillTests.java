package io.github.llmresilience.sample;

import dev.langchain4j.model.chat.ChatModel;
import io.github.llmresilience.sample.drill.DrillClient;

import org.springframework.beans.factory.BeanFactory;

/**
 * The drills with {@code --client=langchain4j}: the jobs call the chain's LangChain4j
 * {@code ChatModel} over LangChain4j's own OpenAI and Anthropic chat models; the counts
 * are the same as with the WebClient and Spring AI clients.
 */
class LangChain4jDrillTests extends ModelClientDrillTests {

	LangChain4jDrillTests() {
		super(DrillClient.LANGCHAIN4J, "LangChain4j", "Lc4jChatModel");
	}

	@Override
	String warmUp(BeanFactory beans, String model) {
		return beans.getBean(model, ChatModel.class).chat("Warm up");
	}

}
