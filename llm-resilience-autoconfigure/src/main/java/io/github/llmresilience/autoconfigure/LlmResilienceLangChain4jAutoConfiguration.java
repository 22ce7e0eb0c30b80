package io.github.llmresilience.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import io.github.llmresilience.autoconfigure.InvalidLlmResiliencePropertiesException.Problem;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.extract.LangChain4jErrorExtractor;
import io.github.llmresilience.langchain4j.ModelRetriesOff;
import io.github.llmresilience.langchain4j.ResilientChatModel;
import io.github.llmresilience.langchain4j.ResilientStreamingChatModel;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.beans.factory.SmartFactoryBean;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * LangChain4j: for each chain whose targets name LangChain4j models
 * ({@code llm.resilience.targets.<name>.lc4j-chat-model}), a failover model bean that
 * serves calls through the chain: {@code <chain>Lc4jChatModel} (a {@link ChatModel}) when
 * every target names a {@code ChatModel}, {@code <chain>Lc4jStreamingChatModel} (a
 * {@link StreamingChatModel}) when every target names a {@code StreamingChatModel}; the
 * primary one of its type when only one chain has one. The retries of the protected
 * models are turned off ({@code llm.resilience.langchain4j.retries-off=false} keeps
 * them), and LangChain4j's HTTP errors are read by {@link LangChain4jErrorExtractor}.
 */
@AutoConfiguration(after = LlmResilienceAutoConfiguration.class)
@ConditionalOnClass(name = "dev.langchain4j.model.chat.ChatModel")
@ConditionalOnProperty(prefix = "llm.resilience", name = "enabled", havingValue = "true", matchIfMissing = true)
public final class LlmResilienceLangChain4jAutoConfiguration {

	/**
	 * The suffix of a chain's ChatModel bean: chain {@code chat} is
	 * {@code chatLc4jChatModel}.
	 */
	public static final String CHAT_SUFFIX = "Lc4jChatModel";

	/**
	 * The suffix of a chain's StreamingChatModel bean: chain {@code chat} is
	 * {@code chatLc4jStreamingChatModel}.
	 */
	public static final String STREAMING_SUFFIX = "Lc4jStreamingChatModel";

	@Bean
	@ConditionalOnMissingBean
	LangChain4jErrorExtractor langChain4jErrorExtractor() {
		return new LangChain4jErrorExtractor();
	}

	@Bean
	@ConditionalOnProperty(name = ModelRetriesOff.PROPERTY, havingValue = "true", matchIfMissing = true)
	static ModelRetriesOff llmResilienceLangChain4jRetriesOff(Environment environment) {
		Set<String> names = new LinkedHashSet<>();
		modelChains(properties(environment)).values().forEach((models) -> names.addAll(models.values()));
		return new ModelRetriesOff(names);
	}

	@Bean
	static BeanDefinitionRegistryPostProcessor llmResilienceLangChain4jChainModels(Environment environment) {
		return new ChainModelsRegistrar(environment);
	}

	static LlmResilienceProperties properties(Environment environment) {
		return Binder.get(environment)
			.bind(LlmResilienceProperties.PREFIX, LlmResilienceProperties.class)
			.orElseGet(LlmResilienceProperties::new);
	}

	/**
	 * The chains whose targets name LangChain4j models, each with its targets' bean names
	 * in chain order.
	 * @throws InvalidLlmResiliencePropertiesException when a chain mixes targets with and
	 * without one
	 */
	static Map<String, Map<String, String>> modelChains(LlmResilienceProperties properties) {
		Map<String, Map<String, String>> chains = new LinkedHashMap<>();
		List<Problem> problems = new ArrayList<>();
		properties.getChains().forEach((chain, targets) -> {
			Map<String, String> models = new LinkedHashMap<>();
			List<String> without = new ArrayList<>();
			for (String target : targets) {
				LlmResilienceProperties.TargetProperties settings = properties.getTargets().get(target);
				@Nullable String model = (settings != null) ? settings.getLc4jChatModel() : null;
				if (model != null && !model.isBlank()) {
					models.put(target, model.trim());
				}
				else if (settings != null) {
					without.add(target);
				}
			}
			if (models.isEmpty()) {
				return;
			}
			for (String target : without) {
				problems.add(new Problem(property(target), "null",
						"must name a LangChain4j ChatModel or StreamingChatModel bean: chain " + chain
								+ " serves LangChain4j calls through " + String.join(", ", models.keySet())));
			}
			chains.put(chain, models);
		});
		if (!problems.isEmpty()) {
			throw new InvalidLlmResiliencePropertiesException(problems);
		}
		return chains;
	}

	private static String property(String target) {
		return LlmResilienceProperties.PREFIX + ".targets." + target + ".lc4j-chat-model";
	}

	/**
	 * Registers each chain's failover models once every bean definition is known, so that
	 * the type of each named model (a {@code ChatModel}, a {@code StreamingChatModel} or
	 * both) says which failover models the chain gets.
	 */
	static final class ChainModelsRegistrar implements BeanDefinitionRegistryPostProcessor {

		private final Environment environment;

		ChainModelsRegistrar(Environment environment) {
			this.environment = environment;
		}

		@Override
		public void postProcessBeanDefinitionRegistry(BeanDefinitionRegistry registry) {
			if (!(registry instanceof ConfigurableListableBeanFactory beans)) {
				return;
			}
			Map<String, Map<String, String>> chains = modelChains(properties(this.environment));
			List<Problem> problems = new ArrayList<>();
			Map<String, Map<String, String>> chatChains = new LinkedHashMap<>();
			Map<String, Map<String, String>> streamingChains = new LinkedHashMap<>();
			chains.forEach((chain, models) -> {
				boolean chat = true;
				boolean streaming = true;
				for (Map.Entry<String, String> model : models.entrySet()) {
					@Nullable Class<?> type = beans.containsBean(model.getValue()) ? beans.getType(model.getValue(), false)
							: null;
					boolean isChat = type != null && ChatModel.class.isAssignableFrom(type);
					boolean isStreaming = type != null && StreamingChatModel.class.isAssignableFrom(type);
					if (!isChat && !isStreaming) {
						problems.add(new Problem(property(model.getKey()), PropertiesSettings.quote(model.getValue()),
								"must name a LangChain4j ChatModel or StreamingChatModel bean"
										+ ((type != null) ? "; that bean is " + type.getName() : "")));
					}
					chat &= isChat;
					streaming &= isStreaming;
				}
				if (chat) {
					chatChains.put(chain, models);
				}
				if (streaming) {
					streamingChains.put(chain, models);
				}
				if (!chat && !streaming && problems.isEmpty()) {
					problems.add(new Problem(LlmResilienceProperties.PREFIX + ".chains." + chain,
							String.join(",", models.keySet()),
							"must have targets whose lc4j-chat-model are all LangChain4j ChatModel beans, or all"
									+ " StreamingChatModel beans"));
				}
			});
			if (!problems.isEmpty()) {
				throw new InvalidLlmResiliencePropertiesException(problems);
			}
			chatChains.forEach((chain, models) -> register(registry, chain + CHAT_SUFFIX, chain, models, false,
					chatChains.size() == 1));
			streamingChains.forEach((chain, models) -> register(registry, chain + STREAMING_SUFFIX, chain, models, true,
					streamingChains.size() == 1));
		}

		private static void register(BeanDefinitionRegistry registry, String name, String chain,
				Map<String, String> models, boolean streaming, boolean primary) {
			if (registry.containsBeanDefinition(name)) {
				// A bean of that name of the application's own wins.
				return;
			}
			// A factory bean with its configuration as constructor arguments, not an
			// instance supplier: Boot's AOT processing writes it out as code.
			RootBeanDefinition definition = new RootBeanDefinition(ChainModelFactoryBean.class);
			definition.getConstructorArgumentValues().addIndexedArgumentValue(0, chain);
			definition.getConstructorArgumentValues()
				.addIndexedArgumentValue(1, models.keySet().toArray(String[]::new));
			definition.getConstructorArgumentValues()
				.addIndexedArgumentValue(2, models.values().toArray(String[]::new));
			definition.getConstructorArgumentValues().addIndexedArgumentValue(3, streaming);
			definition.setAttribute(FactoryBean.OBJECT_TYPE_ATTRIBUTE,
					streaming ? ResilientStreamingChatModel.class : ResilientChatModel.class);
			// One chain: the application's ChatModel (or StreamingChatModel) injection
			// points without a qualifier get the protected one.
			definition.setPrimary(primary);
			registry.registerBeanDefinition(name, definition);
		}

		private static <T> Map<String, T> resolved(BeanFactory beans, Map<String, String> models, Class<T> type) {
			Map<String, T> byTarget = new LinkedHashMap<>();
			models.forEach((target, bean) -> byTarget.put(target, beans.getBean(bean, type)));
			return byTarget;
		}

		@Override
		public void postProcessBeanFactory(ConfigurableListableBeanFactory beanFactory) {
		}

	}

	/**
	 * A chain's failover model over LangChain4j models, made from the chain's name, its
	 * targets' model beans and whether they stream.
	 */
	static final class ChainModelFactoryBean implements SmartFactoryBean<Object>, BeanFactoryAware {

		private final String chain;

		private final Map<String, String> models = new LinkedHashMap<>();

		private final boolean streaming;

		private @Nullable BeanFactory beanFactory;

		private @Nullable Object model;

		ChainModelFactoryBean(String chain, String[] targets, String[] beans, boolean streaming) {
			this.chain = chain;
			for (int i = 0; i < targets.length; i++) {
				this.models.put(targets[i], beans[i]);
			}
			this.streaming = streaming;
		}

		@Override
		public void setBeanFactory(BeanFactory beanFactory) {
			this.beanFactory = beanFactory;
		}

		/** The model, made once: every lookup by name or by type gets the same. */
		@Override
		public synchronized Object getObject() {
			Object model = this.model;
			if (model == null) {
				model = create();
				this.model = model;
			}
			return model;
		}

		private Object create() {
			BeanFactory beans = this.beanFactory;
			if (beans == null) {
				throw new IllegalStateException("No bean factory");
			}
			LlmResilience resilience = beans.getBean(LlmResilience.class);
			return this.streaming
					? new ResilientStreamingChatModel(resilience, this.chain,
							ChainModelsRegistrar.resolved(beans, this.models, StreamingChatModel.class))
					: new ResilientChatModel(resilience, this.chain,
							ChainModelsRegistrar.resolved(beans, this.models, ChatModel.class));
		}

		@Override
		public Class<?> getObjectType() {
			return this.streaming ? ResilientStreamingChatModel.class : ResilientChatModel.class;
		}

		/** Made at start-up, as the beans it protects are. */
		@Override
		public boolean isEagerInit() {
			return true;
		}

	}

}
