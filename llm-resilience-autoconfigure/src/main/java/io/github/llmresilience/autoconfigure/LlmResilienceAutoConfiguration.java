package io.github.llmresilience.autoconfigure;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

import io.github.llmresilience.autoconfigure.InvalidLlmResiliencePropertiesException.Problem;
import io.github.llmresilience.canary.CanaryJudge;
import io.github.llmresilience.canary.CanaryProbe;
import io.github.llmresilience.change.StateChangeListener;
import io.github.llmresilience.change.StateChanges;
import io.github.llmresilience.classify.ClassificationRule;
import io.github.llmresilience.classify.ClassificationRules;
import io.github.llmresilience.classify.ClassifierSettings;
import io.github.llmresilience.classify.ProviderClassifiers;
import io.github.llmresilience.classify.ProviderErrorClassifier;
import io.github.llmresilience.classify.UnclassifiedListener;
import io.github.llmresilience.classify.UnclassifiedListeners;
import io.github.llmresilience.execute.CallObserver;
import io.github.llmresilience.execute.CallTracing;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.execute.LlmResilienceBuilder;
import io.github.llmresilience.extract.AnthropicSdkErrorExtractor;
import io.github.llmresilience.extract.ErrorExtractor;
import io.github.llmresilience.extract.ErrorExtractors;
import io.github.llmresilience.extract.OpenAiSdkErrorExtractor;
import io.github.llmresilience.extract.SpringAiErrorExtractor;
import io.github.llmresilience.fleet.FleetStore;
import io.github.llmresilience.pool.LeaseStore;
import io.github.llmresilience.target.TargetRegistry;
import io.github.llmresilience.timeout.CoalescingTimer;
import io.github.llmresilience.web.RestClientErrorExtractor;
import io.github.llmresilience.web.WebClientErrorExtractor;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import reactor.core.scheduler.Scheduler;

/**
 * Auto-configuration of llm-resilience: the classifiers of every provider, the targets
 * and chains from {@code llm.resilience.*}, and the {@link LlmResilience} executor.
 * Timeouts and backoffs run on the shared {@link CoalescingTimer} unless a Reactor
 * {@link Scheduler} bean named {@code llmResilienceScheduler} is defined (a test's
 * virtual time, for example).
 */
@AutoConfiguration
@ConditionalOnProperty(prefix = "llm.resilience", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(LlmResilienceProperties.class)
public final class LlmResilienceAutoConfiguration {

	/**
	 * The settings the properties make, checked once at startup: a property out of its
	 * range stops the application naming it.
	 */
	@Bean
	PropertiesSettings llmResilienceSettings(LlmResilienceProperties properties, Environment environment) {
		return PropertiesSettings.of(properties, environment.getProperty("spring.application.name"));
	}

	@Bean
	@ConditionalOnMissingBean
	Clock llmResilienceClock() {
		return Clock.systemUTC();
	}

	@Bean
	@ConditionalOnMissingBean
	StateChanges llmResilienceStateChanges(Clock clock, ObjectProvider<StateChangeListener> listeners) {
		StateChanges events = new StateChanges(clock);
		listeners.orderedStream().forEach(events::addListener);
		return events;
	}

	@Bean
	@ConditionalOnMissingBean
	ProviderClassifiers providerClassifiers(PropertiesSettings settings, Clock clock,
			ObjectProvider<ProviderErrorClassifier> custom, ObjectProvider<UnclassifiedListener> listeners) {
		UnclassifiedListener listener = UnclassifiedListeners.of(listeners.orderedStream().toList());
		ClassifierSettings classifierSettings = new ClassifierSettings(clock, settings.quotaThreshold(), listener);
		ProviderClassifiers classifiers;
		try {
			classifiers = new ProviderClassifiers(custom.orderedStream().toList(), classifierSettings);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidLlmResiliencePropertiesException(
					List.of(new Problem("ProviderErrorClassifier beans", "", ex.getMessage())));
		}
		List<Problem> problems = new ArrayList<>();
		settings.targets().forEach((target) -> {
			if (!classifiers.contains(target.provider())) {
				problems.add(new Problem(PropertiesSettings.PREFIX + ".targets." + target.name() + ".provider",
						PropertiesSettings.quote(target.provider()),
						"must be a provider id with a classifier: " + String.join(", ", classifiers.providerIds())
								+ " (or register a ProviderErrorClassifier bean for a new id)"));
			}
		});
		if (!problems.isEmpty()) {
			throw new InvalidLlmResiliencePropertiesException(problems);
		}
		return classifiers;
	}

	/**
	 * The user's classification rules from {@code llm.resilience.classification.rules}
	 * (checked by {@link PropertiesSettings}), the one object the endpoint's edits
	 * change.
	 */
	@Bean
	@ConditionalOnMissingBean
	ClassificationRules llmResilienceClassificationRules(PropertiesSettings settings, ProviderClassifiers classifiers) {
		List<ClassificationRule> rules = settings.rules();
		List<Problem> problems = new ArrayList<>();
		for (int i = 0; i < rules.size(); i++) {
			ClassificationRule rule = rules.get(i);
			if (rule.provider() != null && !classifiers.contains(rule.provider())) {
				problems.add(new Problem(PropertiesSettings.PREFIX + ".classification.rules[" + i + "].provider",
						PropertiesSettings.quote(rule.provider()),
						"must be a provider id with a classifier: " + String.join(", ", classifiers.providerIds())));
			}
		}
		if (!problems.isEmpty()) {
			throw new InvalidLlmResiliencePropertiesException(problems);
		}
		try {
			return new ClassificationRules(rules);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidLlmResiliencePropertiesException(List.of(new Problem(
					PropertiesSettings.PREFIX + ".classification.rules", rules.size() + " rules", ex.getMessage())));
		}
	}

	@Bean
	@ConditionalOnMissingBean
	ErrorExtractors llmResilienceErrorExtractors(ObjectProvider<ErrorExtractor> extractors) {
		return new ErrorExtractors(extractors.orderedStream().toList());
	}

	@Bean
	@ConditionalOnMissingBean
	TargetRegistry llmResilienceTargetRegistry(PropertiesSettings settings, StateChanges events) {
		return new TargetRegistry(settings.targets(), settings.chains(), events);
	}

	/**
	 * Where the failure domains' Resilience4j breakers live, for Resilience4j's own meter
	 * binders. Not a default candidate: it neither steps in for an application's own
	 * registry nor makes one back off; state changes go through the operator.
	 */
	@Bean(defaultCandidate = false)
	CircuitBreakerRegistry llmResilienceCircuitBreakerRegistry() {
		return CircuitBreakerRegistry.ofDefaults();
	}

	@Bean
	@ConditionalOnMissingBean
	LlmResilience llmResilience(PropertiesSettings settings, Clock clock, TargetRegistry registry, StateChanges events,
			ProviderClassifiers classifiers, ClassificationRules rules, ErrorExtractors extractors,
			ObjectProvider<CallObserver> observers, ObjectProvider<UnclassifiedListener> listeners,
			@Qualifier("llmResilienceScheduler") ObjectProvider<Scheduler> scheduler,
			@Qualifier("llmResilienceCircuitBreakerRegistry") CircuitBreakerRegistry circuitBreakers,
			ObjectProvider<FleetStore> fleetStore, ObjectProvider<CanaryProbe> canaryProbe,
			ObjectProvider<CanaryJudge> canaryJudge, ObjectProvider<LeaseStore> leaseStore,
			ObjectProvider<CallTracing> tracing) {
		List<CallObserver> allObservers = observers.orderedStream().toList();
		LlmResilienceBuilder builder = LlmResilience.builder()
			.clock(clock)
			.scheduler(scheduler.getIfAvailable(CoalescingTimer::shared))
			.circuitBreakers(circuitBreakers)
			.breaker(settings.breaker())
			.failureDomain(settings.failureDomain())
			.retry(settings.retry())
			.throttle(settings.throttle())
			.accounts(settings.accounts())
			.timeouts(settings.timeouts())
			.classifiers(classifiers)
			.classificationRules(rules)
			.overload(settings.overload())
			.concurrency(settings.concurrency())
			.clientThrottling(settings.clientThrottling())
			.hedging(settings.hedging())
			.pools(settings.pools())
			.spend(settings.spend())
			.extractors(extractors)
			.observer(CallObserver.of(allObservers))
			.tracing(tracing.getIfAvailable(() -> CallTracing.NONE))
			.unclassifiedListener(UnclassifiedListeners.of(listeners.orderedStream().toList()))
			.unknownExceptions(settings.unknownExceptions());
		registry.targets().values().forEach((target) -> builder.target(target, settings.targetOptions(target.name())));
		settings.canaries(builder, canaryProbe.getIfAvailable(), canaryJudge.getIfAvailable());
		settings.prices().forEach(builder::price);
		if (settings.fleetEnabled()) {
			FleetStore store = fleetStore.getIfAvailable();
			if (store == null) {
				throw fleetNeedsStore();
			}
			builder.fleet(store, settings.fleet());
			String pod = settings.fleetPod();
			if (pod != null) {
				builder.fleetPod(pod);
			}
			LeaseStore leases = leaseStore.getIfAvailable();
			if (settings.leases().enabled() && leases != null) {
				builder.poolLeases(leases, settings.leases());
			}
		}
		try {
			return builder.build(registry, events);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidLlmResiliencePropertiesException(
					List.of(new Problem(PropertiesSettings.PREFIX + ".targets", "", ex.getMessage())));
		}
	}

	/** Fleet mode is on, and nothing to keep the fleet's state in. */
	static InvalidLlmResiliencePropertiesException fleetNeedsStore() {
		return new InvalidLlmResiliencePropertiesException(List
			.of(new Problem(PropertiesSettings.PREFIX + ".fleet.enabled", "true",
					"needs a Redis connection: add spring-boot-starter-data-redis-reactive and set spring.data.redis.*,"
							+ " or define a FleetStore bean")));
	}

	@Configuration(proxyBeanMethods = false)
	static final class ErrorExtractorConfiguration {

		@Bean
		@ConditionalOnMissingBean
		SpringAiErrorExtractor springAiErrorExtractor() {
			return new SpringAiErrorExtractor();
		}

		@Configuration(proxyBeanMethods = false)
		@ConditionalOnClass(name = "org.springframework.web.reactive.function.client.WebClientResponseException")
		static final class WebClientExtractorConfiguration {

			@Bean
			@ConditionalOnMissingBean
			WebClientErrorExtractor webClientErrorExtractor() {
				return new WebClientErrorExtractor();
			}

		}

		@Configuration(proxyBeanMethods = false)
		@ConditionalOnClass(name = "org.springframework.web.client.RestClientResponseException")
		static final class RestClientExtractorConfiguration {

			@Bean
			@ConditionalOnMissingBean
			RestClientErrorExtractor restClientErrorExtractor() {
				return new RestClientErrorExtractor();
			}

		}

		@Configuration(proxyBeanMethods = false)
		@ConditionalOnClass(name = "com.openai.errors.OpenAIServiceException")
		static final class OpenAiSdkExtractorConfiguration {

			@Bean
			@ConditionalOnMissingBean
			OpenAiSdkErrorExtractor openAiSdkErrorExtractor() {
				return new OpenAiSdkErrorExtractor();
			}

		}

		@Configuration(proxyBeanMethods = false)
		@ConditionalOnClass(name = "com.anthropic.errors.AnthropicServiceException")
		static final class AnthropicSdkExtractorConfiguration {

			@Bean
			@ConditionalOnMissingBean
			AnthropicSdkErrorExtractor anthropicSdkErrorExtractor() {
				return new AnthropicSdkErrorExtractor();
			}

		}

	}

}
