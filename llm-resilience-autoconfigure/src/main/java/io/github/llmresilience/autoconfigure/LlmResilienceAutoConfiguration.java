package io.github.llmresilience.autoconfigure;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.llmresilience.autoconfigure.InvalidLlmResiliencePropertiesException.Problem;
import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.canary.CanaryJudge;
import io.github.llmresilience.canary.CanaryProbe;
import io.github.llmresilience.canary.CanarySettings;
import io.github.llmresilience.change.StateChangeListener;
import io.github.llmresilience.change.internal.StateChanges;
import io.github.llmresilience.classify.ClassificationRule;
import io.github.llmresilience.classify.ClassificationRules;
import io.github.llmresilience.classify.ClassifierSettings;
import io.github.llmresilience.classify.ProviderClassifiers;
import io.github.llmresilience.classify.ProviderErrorClassifier;
import io.github.llmresilience.classify.UnclassifiedListener;
import io.github.llmresilience.classify.internal.UnclassifiedListeners;
import io.github.llmresilience.execute.CallObserver;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.execute.LlmResilienceBuilder;
import io.github.llmresilience.execute.TargetOptions;
import io.github.llmresilience.execute.TimeoutSettings;
import io.github.llmresilience.extract.AnthropicSdkErrorExtractor;
import io.github.llmresilience.extract.ErrorExtractor;
import io.github.llmresilience.extract.ErrorExtractors;
import io.github.llmresilience.extract.OpenAiSdkErrorExtractor;
import io.github.llmresilience.extract.SpringAiErrorExtractor;
import io.github.llmresilience.fleet.FleetStore;
import io.github.llmresilience.retry.RetrySettings;
import io.github.llmresilience.spend.Price;
import io.github.llmresilience.target.Secret;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.target.internal.TargetRegistry;
import io.github.llmresilience.throttle.AccountSettings;
import io.github.llmresilience.throttle.ThrottleSettings;
import io.github.llmresilience.timeout.AdaptiveSettings;
import io.github.llmresilience.timeout.internal.CoalescingTimer;
import io.github.llmresilience.web.RestClientErrorExtractor;
import io.github.llmresilience.web.WebClientErrorExtractor;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import org.jspecify.annotations.Nullable;
import reactor.core.scheduler.Scheduler;

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
	ProviderClassifiers providerClassifiers(LlmResilienceProperties properties, Clock clock,
			ObjectProvider<ProviderErrorClassifier> custom, ObjectProvider<UnclassifiedListener> listeners) {
		UnclassifiedListener listener = UnclassifiedListeners.of(listeners.orderedStream().toList());
		ClassifierSettings settings = new ClassifierSettings(clock, properties.getThrottle().getQuotaThreshold(),
				listener);
		ProviderClassifiers classifiers;
		try {
			classifiers = new ProviderClassifiers(custom.orderedStream().toList(), settings);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidLlmResiliencePropertiesException(
					List.of(new Problem("ProviderErrorClassifier beans", "", ex.getMessage())));
		}
		List<Problem> problems = new ArrayList<>();
		properties.getTargets().forEach((name, target) -> {
			if (target.getProvider() != null && !classifiers.contains(target.getProvider())) {
				problems.add(new Problem(LlmResilienceProperties.PREFIX + ".targets." + name + ".provider",
						LlmResilienceProperties.quote(target.getProvider()),
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
	 * (checked by the properties), the one object the endpoint's edits change.
	 */
	@Bean
	@ConditionalOnMissingBean
	ClassificationRules llmResilienceClassificationRules(LlmResilienceProperties properties,
			ProviderClassifiers classifiers) {
		List<ClassificationRule> rules = new ArrayList<>();
		List<Problem> problems = new ArrayList<>();
		List<LlmResilienceProperties.Rule> configured = properties.getClassification().getRules();
		for (int i = 0; i < configured.size(); i++) {
			ClassificationRule rule = configured.get(i).toRule();
			if (rule.provider() != null && !classifiers.contains(rule.provider())) {
				problems.add(new Problem(LlmResilienceProperties.PREFIX + ".classification.rules[" + i + "].provider",
						LlmResilienceProperties.quote(rule.provider()),
						"must be a provider id with a classifier: " + String.join(", ", classifiers.providerIds())));
			}
			rules.add(rule);
		}
		if (!problems.isEmpty()) {
			throw new InvalidLlmResiliencePropertiesException(problems);
		}
		try {
			return new ClassificationRules(rules);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidLlmResiliencePropertiesException(
					List.of(new Problem(LlmResilienceProperties.PREFIX + ".classification.rules",
							rules.size() + " rules", ex.getMessage())));
		}
	}

	@Bean
	@ConditionalOnMissingBean
	ErrorExtractors llmResilienceErrorExtractors(ObjectProvider<ErrorExtractor> extractors) {
		return new ErrorExtractors(extractors.orderedStream().toList());
	}

	@Bean
	@ConditionalOnMissingBean
	TargetRegistry llmResilienceTargetRegistry(LlmResilienceProperties properties, StateChanges events) {
		List<Target> targets = new ArrayList<>();
		properties.getTargets()
			.forEach((name, target) -> targets.add(new Target(name, target.getProvider(), target.getAccount(),
					target.getModel(), target.getRegion(), target.getBaseUrl(), Secret.of(target.getApiKey()))));
		return new TargetRegistry(targets, properties.getChains(), events);
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
	LlmResilience llmResilience(LlmResilienceProperties properties, Clock clock, TargetRegistry registry,
			StateChanges events, ProviderClassifiers classifiers, ClassificationRules rules, ErrorExtractors extractors,
			ObjectProvider<CallObserver> observers, ObjectProvider<UnclassifiedListener> listeners,
			@Qualifier("llmResilienceScheduler") ObjectProvider<Scheduler> scheduler,
			@Qualifier("llmResilienceCircuitBreakerRegistry") CircuitBreakerRegistry circuitBreakers,
			ObjectProvider<FleetStore> fleetStore, ObjectProvider<CanaryProbe> canaryProbe,
			ObjectProvider<CanaryJudge> canaryJudge, Environment environment) {
		List<CallObserver> allObservers = observers.orderedStream().toList();
		LlmResilienceBuilder builder = LlmResilience.builder()
			.clock(clock)
			.scheduler(scheduler.getIfAvailable(CoalescingTimer::shared))
			.circuitBreakers(circuitBreakers)
			.breaker(breaker(properties.getBreaker(), null, properties.getTimeouts().getFirstToken()))
			.failureDomain(properties.getBreaker().getFailureDomain())
			.retry(retry(properties.getRetry()))
			.throttle(properties.getThrottle().settings())
			.accounts(new AccountSettings(properties.getQuota().getDefaultPark(), properties.getQuota().getMaxPark(),
					properties.getCredential().getLockAfter(), properties.getCredential().getLockDuration(),
					properties.getCredential().getLockDurationMax()))
			.timeouts(timeouts(properties.getTimeouts()))
			.classifiers(classifiers)
			.classificationRules(rules)
			.overload(properties.getProviderOverload().toSettings())
			.pools(properties.getPools().settings())
			.spend(properties.getSpend().toSettings())
			.extractors(extractors)
			.observer(CompositeCallObserver.of(allObservers))
			.unclassifiedListener(UnclassifiedListeners.of(listeners.orderedStream().toList()))
			.unknownExceptions(properties.getClassification().getUnknownExceptions());
		Map<String, TargetOptions> options = new LinkedHashMap<>();
		properties.getTargets().forEach((name, target) -> {
			// A target's own first-token timeout moves its default slow-first-token
			// threshold.
			BreakerSettings breaker = (target.getBreaker().isEmpty() && target.getTimeouts().getFirstToken() == null)
					? null
					: breaker(properties.getBreaker(), target.getBreaker(),
							(target.getTimeouts().getFirstToken() != null) ? target.getTimeouts().getFirstToken()
									: properties.getTimeouts().getFirstToken());
			options.put(name, new TargetOptions(breaker, target.getTimeouts().getAttempt(),
					target.getTimeouts().getFirstToken(), target.getTimeouts().getStall()));
		});
		registry.targets()
			.values()
			.forEach((target) -> builder.target(target, options.getOrDefault(target.name(), TargetOptions.DEFAULTS)));
		canaries(properties, builder, canaryProbe.getIfAvailable(), canaryJudge.getIfAvailable());
		properties.getTargets().forEach((name, target) -> {
			Price price = target.getPrice().toPrice();
			if (price != null) {
				builder.price(name, price);
			}
		});
		LlmResilienceProperties.Fleet fleet = properties.getFleet();
		if (fleet.isEnabled()) {
			FleetStore store = fleetStore.getIfAvailable();
			if (store == null) {
				throw fleetNeedsStore();
			}
			builder.fleet(store, fleet.settings(environment.getProperty("spring.application.name")));
			if (fleet.getPod() != null) {
				builder.fleetPod(fleet.getPod());
			}
		}
		try {
			return builder.build(registry, events);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidLlmResiliencePropertiesException(
					List.of(new Problem(LlmResilienceProperties.PREFIX + ".targets", "", ex.getMessage())));
		}
	}

	/**
	 * The canaries of {@code llm.resilience.breaker.canary} and each target's
	 * {@code breaker.canary}, sent by the application's {@link CanaryProbe} when there is
	 * one, else by the built-in prompt sender.
	 */
	private static void canaries(LlmResilienceProperties properties, LlmResilienceBuilder builder,
			@Nullable CanaryProbe probe, @Nullable CanaryJudge judge) {
		LlmResilienceProperties.Canary defaults = properties.getBreaker().getCanary();
		List<Problem> problems = new ArrayList<>();
		String defaultProperty = LlmResilienceProperties.PREFIX + ".breaker.canary";
		if (probe != null) {
			builder.canaryProbe(probe);
		}
		if (judge != null) {
			builder.canaryJudge(judge);
		}
		if (defaults.isOn(null, probe != null)) {
			CanarySettings settings = defaults.toSettings(null);
			requireJudge(settings, judge, defaultProperty, problems);
			builder.canary(settings);
		}
		properties.getTargets().forEach((name, target) -> {
			LlmResilienceProperties.Canary canary = target.getBreaker().getCanary();
			if (canary.isEmpty()) {
				return;
			}
			CanarySettings settings = canary.isOn(defaults, probe != null) ? canary.toSettings(defaults) : null;
			if (settings != null) {
				requireJudge(settings, judge, (canary.getJudge() != null)
						? LlmResilienceProperties.PREFIX + ".targets." + name + ".breaker.canary" : defaultProperty,
						problems);
			}
			builder.canary(name, settings);
		});
		if (!problems.isEmpty()) {
			throw new InvalidLlmResiliencePropertiesException(problems);
		}
	}

	private static void requireJudge(CanarySettings settings, @Nullable CanaryJudge judge, String property,
			List<Problem> problems) {
		if (settings.judge() == CanarySettings.Judge.PREDICATE && judge == null) {
			Problem problem = new Problem(property + ".judge", "predicate", "needs a CanaryJudge bean");
			if (!problems.contains(problem)) {
				problems.add(problem);
			}
		}
	}

	/** Fleet mode is on, and nothing to keep the fleet's state in. */
	static InvalidLlmResiliencePropertiesException fleetNeedsStore() {
		return new InvalidLlmResiliencePropertiesException(List
			.of(new Problem(LlmResilienceProperties.PREFIX + ".fleet.enabled", "true",
					"needs a Redis connection: add spring-boot-starter-data-redis-reactive and set spring.data.redis.*,"
							+ " or define a FleetStore bean")));
	}

	/**
	 * How far into the first-token timeout a stream starts to count as slow, unless
	 * configured.
	 */
	private static final double SLOW_FIRST_TOKEN_SHARE = 0.6;

	static BreakerSettings breaker(LlmResilienceProperties.Breaker defaults,
			LlmResilienceProperties.@Nullable BreakerOverrides overrides, Duration firstTokenTimeout) {
		Duration slowFirstToken = (defaults.getSlowFirstTokenDuration() != null) ? defaults.getSlowFirstTokenDuration()
				: Duration.ofNanos((long) (firstTokenTimeout.toNanos() * SLOW_FIRST_TOKEN_SHARE));
		LlmResilienceProperties.BreakerOverrides o = (overrides != null) ? overrides
				: new LlmResilienceProperties.BreakerOverrides();
		return new BreakerSettings(
				(o.getSlidingWindowSize() != null) ? o.getSlidingWindowSize() : defaults.getSlidingWindowSize(),
				(o.getMinimumCalls() != null) ? o.getMinimumCalls() : defaults.getMinimumCalls(),
				(o.getFailureRateThreshold() != null) ? o.getFailureRateThreshold()
						: defaults.getFailureRateThreshold(),
				(o.getSlowCallDuration() != null) ? o.getSlowCallDuration() : defaults.getSlowCallDuration(),
				(o.getSlowCallRateThreshold() != null) ? o.getSlowCallRateThreshold()
						: defaults.getSlowCallRateThreshold(),
				(o.getOpenDuration() != null) ? o.getOpenDuration() : defaults.getOpenDuration(),
				(o.getOpenDurationMax() != null) ? o.getOpenDurationMax() : defaults.getOpenDurationMax(),
				defaults.getHalfOpenCalls(),
				(o.getSlowFirstTokenDuration() != null) ? o.getSlowFirstTokenDuration() : slowFirstToken,
				defaults.getHalfOpenTimeout());
	}

	static TimeoutSettings timeouts(LlmResilienceProperties.Timeouts timeouts) {
		LlmResilienceProperties.Adaptive adaptive = timeouts.getAdaptive();
		return new TimeoutSettings(timeouts.getAttempt(), timeouts.getFirstToken(), timeouts.getStall(),
				new AdaptiveSettings(adaptive.isEnabled(), adaptive.getMinSamples(), adaptive.getMultiplier(),
						adaptive.getFloor(), adaptive.getFloorRatio()),
				timeouts.getCall());
	}

	static RetrySettings retry(LlmResilienceProperties.Retry retry) {
		return new RetrySettings(retry.getMaxAttempts(), retry.getBackoffBase(), retry.getBackoffMax(),
				retry.getBudgetRatio(), retry.getBudgetWindow(), retry.getBudgetMinimum());
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
