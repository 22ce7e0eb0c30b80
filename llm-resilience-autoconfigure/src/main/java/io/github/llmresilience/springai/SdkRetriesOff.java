package io.github.llmresilience.springai;

import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.ai.model.anthropic.autoconfigure.AnthropicConnectionProperties;
import org.springframework.ai.model.openai.autoconfigure.AbstractOpenAiProperties;
import org.springframework.ai.retry.autoconfigure.SpringAiRetryProperties;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * One owner of retries: sets the retries of the SDK under a protected Spring AI chat
 * model to 0 in the properties its auto-configuration builds the client from, before the
 * chat model is built, so that a failed attempt is one request and a {@code Retry-After}
 * reaches llm-resilience instead of the SDK's own capped backoff. Says so once at
 * start-up. Each vendor is a separate class, loaded only when that vendor's Spring AI
 * auto-configuration is on the classpath.
 */
public abstract class SdkRetriesOff implements BeanPostProcessor {

	private static final Logger logger = LoggerFactory.getLogger(SdkRetriesOff.class);

	/** The opt-out property, named in the start-up line. */
	public static final String PROPERTY = "llm.resilience.spring-ai.sdk-retries-off";

	private final AtomicBoolean said = new AtomicBoolean();

	private final String chatModel;

	/** Whether the chat model this one serves is protected by a chain. */
	final boolean active;

	SdkRetriesOff(String chatModel, boolean active) {
		this.chatModel = chatModel;
		this.active = active;
	}

	void said(String what, int before) {
		if (this.said.compareAndSet(false, true)) {
			logger.info("llm-resilience owns the retries of {}: {} set to 0 (was {}); set {}=false to keep them",
					this.chatModel, what, before, PROPERTY);
		}
	}

	/**
	 * The OpenAI SDK's retries under {@code openAiChatModel}.
	 * @param chatModels the names of the chat model beans that chains protect
	 */
	public static SdkRetriesOff openAi(Set<String> chatModels) {
		return new OpenAi(chatModels.contains(OpenAi.BEAN));
	}

	/**
	 * The Anthropic SDK's retries under {@code anthropicChatModel}.
	 * @param chatModels the names of the chat model beans that chains protect
	 */
	public static SdkRetriesOff anthropic(Set<String> chatModels) {
		return new Anthropic(chatModels.contains(Anthropic.BEAN));
	}

	/**
	 * Spring AI's own retry template, which the chat models built on its REST client use
	 * (the OpenAI and Anthropic ones of 2.0 do not).
	 * @param chatModels the names of the chat model beans that chains protect
	 */
	public static SdkRetriesOff retryTemplate(Set<String> chatModels) {
		return new RetryTemplate(!chatModels.isEmpty());
	}

	static final class OpenAi extends SdkRetriesOff {

		static final String BEAN = "openAiChatModel";

		OpenAi(boolean active) {
			super(BEAN, active);
		}

		@Override
		public Object postProcessAfterInitialization(Object bean, String beanName) {
			// Both the common spring.ai.openai.* and the spring.ai.openai.chat.* set
			// carry max-retries; the chat model's client takes the resolved one.
			if (this.active && bean instanceof AbstractOpenAiProperties properties && properties.getMaxRetries() != 0) {
				int before = properties.getMaxRetries();
				properties.setMaxRetries(0);
				said("the OpenAI SDK's max-retries", before);
			}
			return bean;
		}

	}

	static final class Anthropic extends SdkRetriesOff {

		static final String BEAN = "anthropicChatModel";

		Anthropic(boolean active) {
			super(BEAN, active);
		}

		@Override
		public Object postProcessAfterInitialization(Object bean, String beanName) {
			if (this.active && bean instanceof AnthropicConnectionProperties properties) {
				Integer before = properties.getMaxRetries();
				if (before == null || before != 0) {
					properties.setMaxRetries(0);
					// Unset, the SDK's own default of 2 applies.
					said("the Anthropic SDK's max-retries", (before != null) ? before : 2);
				}
			}
			return bean;
		}

	}

	static final class RetryTemplate extends SdkRetriesOff {

		RetryTemplate(boolean active) {
			super("the chat models on Spring AI's retry template", active);
		}

		@Override
		public Object postProcessAfterInitialization(Object bean, String beanName) {
			// Spring AI hands max-attempts to RetryPolicy.maxRetries: 0 is no retry.
			if (this.active && bean instanceof SpringAiRetryProperties properties && properties.getMaxAttempts() > 0) {
				int before = properties.getMaxAttempts();
				properties.setMaxAttempts(0);
				said("spring.ai.retry.max-attempts (its RetryTemplate's retries)", before);
			}
			return bean;
		}

	}

}
