package io.github.llmresilience.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.beans.factory.SmartFactoryBean;
import org.springframework.beans.factory.config.ConstructorArgumentValues;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;

/**
 * A chain's failover model over a model client's models (Spring AI's, LangChain4j's),
 * made at start-up from the chain's name, its targets' model beans and one more argument
 * of the client's. A factory bean with its configuration as constructor arguments, not an
 * instance supplier: Boot's AOT processing writes it out as code.
 *
 * @param <T> the failover model
 */
abstract class FailoverModelFactoryBean<T> implements SmartFactoryBean<T>, BeanFactoryAware {

	private final String chain;

	/** The targets' model beans by target, in chain order. */
	private final Map<String, String> models = new LinkedHashMap<>();

	private @Nullable BeanFactory beanFactory;

	private @Nullable T model;

	FailoverModelFactoryBean(String chain, String[] targets, String[] beans) {
		this.chain = chain;
		for (int i = 0; i < targets.length; i++) {
			this.models.put(targets[i], beans[i]);
		}
	}

	/**
	 * Registers a chain's failover model, unless the application has a bean of that name
	 * (its own wins).
	 * @param factory the factory bean, whose constructor takes the chain, its targets,
	 * their model beans and {@code argument}
	 * @param model the type of the model it makes
	 * @param primary whether the model is the primary bean of its type: with one chain,
	 * the application's injection points without a qualifier get the protected model
	 */
	static void register(BeanDefinitionRegistry registry, String name, Class<?> factory, Class<?> model, String chain,
			Map<String, String> models, Object argument, boolean primary) {
		if (registry.containsBeanDefinition(name)) {
			return;
		}
		RootBeanDefinition definition = new RootBeanDefinition(factory);
		ConstructorArgumentValues arguments = definition.getConstructorArgumentValues();
		arguments.addIndexedArgumentValue(0, chain);
		arguments.addIndexedArgumentValue(1, models.keySet().toArray(String[]::new));
		arguments.addIndexedArgumentValue(2, models.values().toArray(String[]::new));
		arguments.addIndexedArgumentValue(3, argument);
		definition.setAttribute(FactoryBean.OBJECT_TYPE_ATTRIBUTE, model);
		definition.setPrimary(primary);
		registry.registerBeanDefinition(name, definition);
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	/** The model, made once: every lookup by name or by type gets the same. */
	@Override
	public synchronized T getObject() {
		T model = this.model;
		if (model == null) {
			BeanFactory beans = this.beanFactory;
			if (beans == null) {
				throw new IllegalStateException("No bean factory");
			}
			model = create(beans, this.chain, this.models);
			this.model = model;
		}
		return model;
	}

	/**
	 * Makes the model.
	 * @param models the targets' model beans by target, in chain order
	 */
	abstract T create(BeanFactory beans, String chain, Map<String, String> models);

	/**
	 * Made at start-up, as the models it protects are: a misnamed model bean stops the
	 * start there.
	 */
	@Override
	public boolean isEagerInit() {
		return true;
	}

}
