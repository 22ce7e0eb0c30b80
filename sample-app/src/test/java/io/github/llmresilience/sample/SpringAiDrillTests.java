package io.github.llmresilience.sample;

import io.github.llmresilience.sample.drill.DrillClient;

import org.springframework.ai.chat.model.ChatModel;
import org.springframework.beans.factory.BeanFactory;

/**
 * The drills with {@code --client=spring-ai}: the jobs call the chain's ChatModel over
 * Spring AI's own OpenAI and Anthropic chat models (on their SDKs).
 */
class SpringAiDrillTests extends ModelClientDrillTests {

	SpringAiDrillTests() {
		super(DrillClient.SPRING_AI, "Spring AI", "ChatModel");
	}

	@Override
	String warmUp(BeanFactory beans, String model) {
		return beans.getBean(model, ChatModel.class).call("Warm up");
	}

}
