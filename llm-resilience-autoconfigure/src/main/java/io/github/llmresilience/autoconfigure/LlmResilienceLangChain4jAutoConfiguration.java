package io.github.llmresilience.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.BeanDefinitionRegistryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
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
		return new ModelRetriesOff(
				ChainModels.protectedModels(ChainModels.LANGCHAIN4J.chains(ChainModels.properties(environment))));
	}

	@Bean
	static BeanDefinitionRegistryPostProcessor llmResilienceLangChain4jChainModels(Environment environment) {
		return new ChainModelsRegistrar(environment);
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
			Map<String, Map<String, String>> chains = ChainModels.LANGCHAIN4J
				.chains(ChainModels.properties(this.environment));
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
						problems.add(new Problem(ChainModels.LANGCHAIN4J.property(model.getKey()),
								PropertiesSettings.quote(model.getValue()),
								"must name " + ChainModels.LANGCHAIN4J.kind()
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
			chatChains.forEach((chain, models) -> FailoverModelFactoryBean.register(registry, chain + CHAT_SUFFIX,
					ChainModelFactoryBean.class, ResilientChatModel.class, chain, models, false,
					chatChains.size() == 1));
			streamingChains.forEach((chain, models) -> FailoverModelFactoryBean.register(registry,
					chain + STREAMING_SUFFIX, ChainModelFactoryBean.class, ResilientStreamingChatModel.class, chain,
					models, true, streamingChains.size() == 1));
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
	static final class ChainModelFactoryBean extends FailoverModelFactoryBean<Object> {

		private final boolean streaming;

		ChainModelFactoryBean(String chain, String[] targets, String[] beans, boolean streaming) {
			super(chain, targets, beans);
			this.streaming = streaming;
		}

		@Override
		Object create(BeanFactory beans, String chain, Map<String, String> models) {
			LlmResilience resilience = beans.getBean(LlmResilience.class);
			return this.streaming
					? new ResilientStreamingChatModel(resilience, chain,
							ChainModelsRegistrar.resolved(beans, models, StreamingChatModel.class))
					: new ResilientChatModel(resilience, chain,
							ChainModelsRegistrar.resolved(beans, models, ChatModel.class));
		}

		@Override
		public Class<?> getObjectType() {
			return this.streaming ? ResilientStreamingChatModel.class : ResilientChatModel.class;
		}

	}

}
