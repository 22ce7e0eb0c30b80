package io.github.llmresilience.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.llmresilience.autoconfigure.InvalidLlmResiliencePropertiesException.Problem;
import io.github.llmresilience.execute.LlmFallback;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.springai.ResilientChatModel;
import io.github.llmresilience.springai.SdkRetriesOff;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.StringUtils;

/**
 * Spring AI: for each chain whose targets name chat models
 * ({@code llm.resilience.targets.<name>.chat-model}), a {@link ChatModel} bean named
 * {@code <chain>ChatModel} that serves calls through the chain (the primary ChatModel
 * when it is the only one, so that Spring AI's auto-configured {@code ChatClient.Builder}
 * is built on it); and the retries of the SDKs under the protected chat models turned off
 * ({@code llm.resilience.spring-ai.sdk-retries-off=false} keeps them). A chain's fallback
 * ({@code llm.resilience.fallbacks.<chain>}) must name an
 * {@code LlmFallback<ChatResponse>} bean, checked at startup.
 */
@AutoConfiguration(after = LlmResilienceAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.ai.chat.model.ChatModel")
@ConditionalOnProperty(prefix = "llm.resilience", name = "enabled", havingValue = "true", matchIfMissing = true)
@Import(LlmResilienceSpringAiAutoConfiguration.ChainChatModelsRegistrar.class)
public final class LlmResilienceSpringAiAutoConfiguration {

	/**
	 * The suffix of a chain's ChatModel bean: chain {@code chat} is
	 * {@code chatChatModel}.
	 */
	public static final String BEAN_SUFFIX = "ChatModel";

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.ai.model.openai.autoconfigure.AbstractOpenAiProperties")
	@ConditionalOnProperty(name = SdkRetriesOff.PROPERTY, havingValue = "true", matchIfMissing = true)
	static final class OpenAiRetriesConfiguration {

		@Bean
		static SdkRetriesOff llmResilienceOpenAiSdkRetriesOff(Environment environment) {
			return SdkRetriesOff.openAi(protectedChatModels(environment));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.ai.model.anthropic.autoconfigure.AnthropicConnectionProperties")
	@ConditionalOnProperty(name = SdkRetriesOff.PROPERTY, havingValue = "true", matchIfMissing = true)
	static final class AnthropicRetriesConfiguration {

		@Bean
		static SdkRetriesOff llmResilienceAnthropicSdkRetriesOff(Environment environment) {
			return SdkRetriesOff.anthropic(protectedChatModels(environment));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.ai.retry.autoconfigure.SpringAiRetryProperties")
	@ConditionalOnProperty(name = SdkRetriesOff.PROPERTY, havingValue = "true", matchIfMissing = true)
	static final class RetryTemplateConfiguration {

		@Bean
		static SdkRetriesOff llmResilienceSpringAiRetryTemplateOff(Environment environment) {
			return SdkRetriesOff.retryTemplate(protectedChatModels(environment));
		}

	}

	/** The chat model beans that some chain protects. */
	static Set<String> protectedChatModels(Environment environment) {
		return ChainModels.protectedModels(chatModelChains(ChainModels.properties(environment)));
	}

	/**
	 * The chains whose targets name chat models, each with its targets' chat model bean
	 * names in chain order.
	 * @throws InvalidLlmResiliencePropertiesException when a chain mixes targets with and
	 * without a chat model, or names a fallback without any
	 */
	static Map<String, Map<String, String>> chatModelChains(LlmResilienceProperties properties) {
		List<Problem> problems = new ArrayList<>();
		Map<String, Map<String, String>> chains = ChainModels.SPRING_AI.chains(properties, problems);
		properties.getFallbacks().forEach((chain, bean) -> {
			if (properties.getChains().containsKey(chain) && !chains.containsKey(chain)) {
				problems.add(new Problem(LlmResilienceProperties.PREFIX + ".fallbacks." + chain,
						PropertiesSettings.quote(bean),
						"is only used by a chain's Spring AI ChatModel, and no target of chain " + chain
								+ " names a chat-model; pass the fallback to LlmResilience's execute, stream or call"));
			}
		});
		if (!problems.isEmpty()) {
			throw new InvalidLlmResiliencePropertiesException(problems);
		}
		return chains;
	}

	/**
	 * Registers one {@link ResilientChatModel} per chain whose targets name chat models.
	 */
	static final class ChainChatModelsRegistrar
			implements ImportBeanDefinitionRegistrar, EnvironmentAware, BeanFactoryAware {

		private @Nullable Environment environment;

		private @Nullable BeanFactory beanFactory;

		@Override
		public void setEnvironment(Environment environment) {
			this.environment = environment;
		}

		@Override
		public void setBeanFactory(BeanFactory beanFactory) {
			this.beanFactory = beanFactory;
		}

		@Override
		public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
			Environment environment = this.environment;
			BeanFactory beanFactory = this.beanFactory;
			if (environment == null || beanFactory == null) {
				return;
			}
			LlmResilienceProperties properties = ChainModels.properties(environment);
			Map<String, Map<String, String>> chains = chatModelChains(properties);
			chains.forEach((chain, models) -> {
				@Nullable String fallback = properties.getFallbacks().get(chain);
				// One chain: the application's ChatModel (and so its ChatClient.Builder)
				// is the protected one; with several, each is picked by name.
				FailoverModelFactoryBean.register(registry, chain + BEAN_SUFFIX, ChainChatModelFactoryBean.class,
						ResilientChatModel.class, chain, models, (fallback != null) ? fallback.trim() : "",
						chains.size() == 1);
			});
		}

		static ResilientChatModel chatModel(BeanFactory beanFactory, String chain, Map<String, String> models,
				@Nullable String fallback) {
			Map<String, ChatModel> byTarget = new LinkedHashMap<>();
			List<Problem> problems = new ArrayList<>();
			models.forEach((target, bean) -> {
				try {
					byTarget.put(target, beanFactory.getBean(bean, ChatModel.class));
				}
				catch (NoSuchBeanDefinitionException ex) {
					problems.add(new Problem(ChainModels.SPRING_AI.property(target), PropertiesSettings.quote(bean),
							"must name a Spring AI ChatModel bean" + whyMissing(beanFactory, bean)));
				}
			});
			if (!problems.isEmpty()) {
				throw new InvalidLlmResiliencePropertiesException(problems);
			}
			return new ResilientChatModel(beanFactory.getBean(LlmResilience.class), chain, byTarget,
					(fallback != null) ? fallback(beanFactory, chain, fallback.trim()) : null);
		}

		/**
		 * What the application has instead of the missing chat model. A Spring AI starter
		 * names its chat model for its class ({@code OpenAiChatModel} is
		 * {@code openAiChatModel}) and backs off when the application declares a bean of
		 * that class: a second model declared with the return type
		 * {@code OpenAiChatModel} switches the first off. Said here because the missing
		 * bean is all a user sees otherwise.
		 */
		static String whyMissing(BeanFactory beanFactory, String missing) {
			if (!(beanFactory instanceof ListableBeanFactory listable)) {
				return "";
			}
			List<String> models = new ArrayList<>();
			@Nullable String replacing = null;
			@Nullable Class<?> replacingType = null;
			for (String name : listable.getBeanNamesForType(ChatModel.class, true, false)) {
				Class<?> type = listable.getType(name, false);
				if (type == null || ResilientChatModel.class.isAssignableFrom(type)) {
					continue;
				}
				models.add(name);
				if (replacing == null && StringUtils.uncapitalize(type.getSimpleName()).equals(missing)) {
					replacing = name;
					replacingType = type;
				}
			}
			if (replacing != null && replacingType != null) {
				return "; Spring AI's auto-configured " + PropertiesSettings.quote(missing)
						+ " backs off when the application declares its own " + replacingType.getSimpleName()
						+ " bean, and " + PropertiesSettings.quote(replacing)
						+ " is one: declare it with the return type ChatModel (@Bean ChatModel " + replacing
						+ "()) to keep both";
			}
			return models.isEmpty() ? "; the context has no ChatModel bean"
					: "; the ChatModel beans are " + String.join(", ", models);
		}

		/**
		 * The chain's fallback bean, checked to answer with a {@link ChatResponse}: a
		 * mistyped one would fail only in an outage, the moment it is needed.
		 */
		@SuppressWarnings("unchecked")
		static LlmFallback<ChatResponse> fallback(BeanFactory beanFactory, String chain, String name) {
			String property = LlmResilienceProperties.PREFIX + ".fallbacks." + chain;
			ResolvableType required = ResolvableType.forClassWithGenerics(LlmFallback.class, ChatResponse.class);
			if (!beanFactory.containsBean(name)) {
				throw new InvalidLlmResiliencePropertiesException(List.of(new Problem(property,
						PropertiesSettings.quote(name), "must name an LlmFallback<ChatResponse> bean")));
			}
			if (!beanFactory.isTypeMatch(name, required)) {
				throw new InvalidLlmResiliencePropertiesException(List
					.of(new Problem(property, PropertiesSettings.quote(name),
							"must name an LlmFallback<ChatResponse> bean; that bean is " + typeOf(beanFactory, name))));
			}
			return (LlmFallback<ChatResponse>) beanFactory.getBean(name);
		}

		private static String typeOf(BeanFactory beanFactory, String name) {
			if (beanFactory instanceof ConfigurableListableBeanFactory listable
					&& listable.containsBeanDefinition(name)) {
				ResolvableType type = listable.getMergedBeanDefinition(name).getResolvableType();
				if (type != ResolvableType.NONE) {
					return type.toString();
				}
			}
			Class<?> type = beanFactory.getType(name);
			return (type != null) ? type.getName() : "of an unknown type";
		}

	}

	/**
	 * A chain's {@link ResilientChatModel}, made from the chain's name, its targets' chat
	 * model beans and its fallback bean ({@code ""} for none); a misnamed chat model or
	 * fallback stops the start.
	 */
	static final class ChainChatModelFactoryBean extends FailoverModelFactoryBean<ResilientChatModel> {

		private final @Nullable String fallback;

		ChainChatModelFactoryBean(String chain, String[] targets, String[] beans, String fallback) {
			super(chain, targets, beans);
			this.fallback = fallback.isEmpty() ? null : fallback;
		}

		@Override
		ResilientChatModel create(BeanFactory beans, String chain, Map<String, String> models) {
			return ChainChatModelsRegistrar.chatModel(beans, chain, models, this.fallback);
		}

		@Override
		public Class<?> getObjectType() {
			return ResilientChatModel.class;
		}

	}

}
