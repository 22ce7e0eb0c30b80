package io.github.llmresilience.langchain4j;

import java.lang.reflect.Field;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.util.ReflectionUtils;

/**
 * One owner of retries: sets the retries of each LangChain4j chat model that a chain
 * protects to 0, so that a failed attempt is one request and llm-resilience alone decides
 * when to try again. LangChain4j's models take {@code maxRetries} in their builder
 * (OpenAI's and Anthropic's default 2, each retry after its own backoff on the caller's
 * thread) and keep it in a final field of that name; the model beans are the
 * application's own, built before this sees them, so the field is set to 0 on the built
 * model. Says so once per model at start-up. A model without the field (LangChain4j's
 * streaming models do not retry) is left as it is.
 */
public final class ModelRetriesOff implements BeanPostProcessor {

	private static final Logger logger = LoggerFactory.getLogger(ModelRetriesOff.class);

	/** The opt-out property, named in the start-up line. */
	public static final String PROPERTY = "llm.resilience.langchain4j.retries-off";

	private static final String FIELD = "maxRetries";

	private final Set<String> models;

	/**
	 * @param models the names of the LangChain4j model beans that chains protect
	 */
	public ModelRetriesOff(Set<String> models) {
		this.models = Set.copyOf(models);
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (this.models.contains(beanName) && bean.getClass().getName().startsWith("dev.langchain4j.")) {
			Field field = ReflectionUtils.findField(bean.getClass(), FIELD);
			if (field != null && (field.getType() == int.class || field.getType() == Integer.class)) {
				turnOff(bean, beanName, field);
			}
		}
		return bean;
	}

	private static void turnOff(Object bean, String beanName, Field field) {
		try {
			ReflectionUtils.makeAccessible(field);
			Object before = field.get(bean);
			if (before instanceof Integer count && count == 0) {
				return;
			}
			field.set(bean, (field.getType() == int.class) ? (Object) 0 : Integer.valueOf(0));
			logger
				.info("llm-resilience owns the retries of {}: LangChain4j's maxRetries set to 0 (was {}); set {}=false"
						+ " to keep them", beanName, (before != null) ? before : "unset", PROPERTY);
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			// A model whose field cannot be set keeps its retries: say so rather than
			// fail the application.
			logger.warn("llm-resilience could not set LangChain4j's maxRetries of {} to 0 ({}); its retries multiply"
					+ " the chain's: build it with maxRetries(0)", beanName, ex.toString());
		}
	}

}
