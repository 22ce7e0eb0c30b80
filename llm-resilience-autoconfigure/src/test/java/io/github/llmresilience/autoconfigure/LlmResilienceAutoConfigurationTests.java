package io.github.llmresilience.autoconfigure;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.ProviderClassifiers;
import io.github.llmresilience.classify.ProviderErrorClassifier;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.extract.OpenAiSdkErrorExtractor;
import io.github.llmresilience.target.TargetRegistry;
import io.github.llmresilience.web.WebClientErrorExtractor;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

class LlmResilienceAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LlmResilienceAutoConfiguration.class))
		.withPropertyValues("llm.resilience.targets.primary.provider=openai",
				"llm.resilience.targets.primary.model=gpt-4o",
				"llm.resilience.targets.primary.base-url=https://api.openai.com",
				"llm.resilience.targets.primary.api-key=sk-test-DO-NOT-LEAK-1234567890",
				"llm.resilience.targets.secondary.provider=anthropic",
				"llm.resilience.targets.secondary.model=claude-sonnet", "llm.resilience.chains.chat[0]=primary",
				"llm.resilience.chains.chat[1]=secondary");

	@Test
	void whenTargetsAndChainsAreConfiguredTheExecutorKnowsThem() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(LlmResilience.class);
			TargetRegistry registry = context.getBean(TargetRegistry.class);
			assertThat(registry.chain("chat")).containsExactly("primary", "secondary");
			assertThat(registry.target("primary").quotaScope()).isEqualTo("primary/gpt-4o");
			assertThat(registry.target("primary").apiKey().reveal()).isEqualTo("sk-test-DO-NOT-LEAK-1234567890");
			assertThat(context.getBean(LlmResilience.class).state().target("primary").breaker().domain())
				.isEqualTo("openai/gpt-4o/global");
		});
	}

	@Test
	void whenNothingIsConfiguredTheBeansStillStart() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(LlmResilienceAutoConfiguration.class))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).hasSingleBean(LlmResilience.class);
				assertThat(context.getBean(TargetRegistry.class).chains()).isEmpty();
			});
	}

	@Test
	void whenDisabledProvidesNoBeans() {
		this.runner.withPropertyValues("llm.resilience.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(LlmResilience.class);
			assertThat(context).doesNotHaveBean(ProviderClassifiers.class);
		});
	}

	@Test
	void whenAChainNamesAnUnknownTargetStartupFailsNamingTheProperty() {
		this.runner.withPropertyValues("llm.resilience.chains.chat[1]=secondry").run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("Property: llm.resilience.chains.chat[1]")
				.contains("Value: 'secondry'")
				.contains("known targets: [primary, secondary]");
		});
	}

	@Test
	void whenAChainIsEmptyStartupFailsNamingTheProperty() {
		this.runner.withPropertyValues("llm.resilience.chains.empty=").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(analyze(context.getStartupFailure()).getDescription())
				.contains("Property: llm.resilience.chains.empty")
				.contains("at least one target");
		});
	}

	@Test
	void whenTheProviderIdIsUnknownStartupFailsListingTheKnownIds() {
		this.runner.withPropertyValues("llm.resilience.targets.primary.provider=openia").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(analyze(context.getStartupFailure()).getDescription())
				.contains("Property: llm.resilience.targets.primary.provider")
				.contains("'openia'")
				.contains("openai, azure-openai, anthropic, gemini, vertex-ai, bedrock, mistral, cohere");
		});
	}

	@Test
	void whenAThresholdIsOutOfRangeStartupFailsNamingTheRange() {
		this.runner.withPropertyValues("llm.resilience.breaker.failure-rate-threshold=150").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(analyze(context.getStartupFailure()).getDescription())
				.contains("Property: llm.resilience.breaker.failure-rate-threshold")
				.contains("Value: 150")
				.contains("must be between 1 and 100");
		});
	}

	@Test
	void whenTheMinimumWaitIsNotBelowTheDefaultWaitStartupFailsNamingTheRange() {
		this.runner.withPropertyValues("llm.resilience.throttle.min-wait=5s").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(analyze(context.getStartupFailure()).getDescription())
				.contains("Property: llm.resilience.throttle.min-wait")
				.contains("must be zero or more and below llm.resilience.throttle.default-wait (PT5S)");
		});
		this.runner.withPropertyValues("llm.resilience.throttle.min-wait=-1ms").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(analyze(context.getStartupFailure()).getDescription())
				.contains("Property: llm.resilience.throttle.min-wait")
				.contains("must be zero or more");
		});
		this.runner.withPropertyValues("llm.resilience.throttle.min-wait=0s")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void whenTheSlowCallDurationIsNotBelowTheTimeoutStartupFailsNamingBoth() {
		this.runner.withPropertyValues("llm.resilience.breaker.slow-call-duration=30s").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(analyze(context.getStartupFailure()).getDescription())
				.contains("llm.resilience.breaker.slow-call-duration")
				.contains("llm.resilience.timeouts.attempt");
		});
	}

	@Test
	void whenATargetOverridesItsTimeoutTheSlowCallCheckUsesIt() {
		this.runner.withPropertyValues("llm.resilience.targets.primary.timeouts.attempt=5s").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(analyze(context.getStartupFailure()).getDescription())
				.contains("llm.resilience.targets.primary.timeouts.attempt (PT5S)");
		});
	}

	@Test
	void whenTheConfigurationIsInvalidTheApiKeyIsNotInTheMessage() {
		this.runner.withPropertyValues("llm.resilience.targets.primary.provider=nope").run((context) -> {
			assertThat(context).hasFailed();
			Throwable failure = context.getStartupFailure();
			StringBuilder text = new StringBuilder(analyze(failure).getDescription());
			for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
				text.append(cause.getMessage());
			}
			assertThat(text.toString()).doesNotContain("DO-NOT-LEAK");
		});
	}

	@Test
	void whenTheUserDefinesAClassifierForANewVendorItIsUsedById() {
		this.runner.withUserConfiguration(OllamaClassifierConfiguration.class)
			.withPropertyValues("llm.resilience.targets.local.provider=llamafile")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				ProviderClassifiers classifiers = context.getBean(ProviderClassifiers.class);
				assertThat(classifiers.forProvider("llamafile").classify(ProviderResponse.of(500, null, "")).outcome())
					.isEqualTo(Outcome.QUOTA);
				assertThat(classifiers.forProvider("openai").provider()).isEqualTo("openai");
			});
	}

	@Test
	void whenTheUserDefinesAClassifierForABuiltInVendorItReplacesIt() {
		this.runner.withUserConfiguration(OpenAiOverrideConfiguration.class).run((context) -> {
			ProviderErrorClassifier openai = context.getBean(ProviderClassifiers.class).forProvider("openai");
			assertThat(openai.classify(ProviderResponse.of(500, null, "")).outcome()).isEqualTo(Outcome.QUOTA);
		});
	}

	@Test
	void whenTheUserDefinesTheExecutorTheAutoConfiguredOneBacksOff() {
		this.runner.withUserConfiguration(OwnExecutorConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(LlmResilience.class);
			assertThat(context.getBean(LlmResilience.class)).isSameAs(context.getBean("myResilience"));
		});
	}

	@Test
	void whenTheUserDefinesAClockTheExecutorUsesIt() {
		this.runner.withUserConfiguration(FixedClockConfiguration.class)
			.run((context) -> assertThat(context.getBean(LlmResilience.class).state().at())
				.isEqualTo(FixedClockConfiguration.NOW));
	}

	@Test
	void whenWebClientIsAbsentNoWebClientExtractorIsDefined() {
		this.runner.withClassLoader(new FilteredClassLoader("org.springframework.web.reactive"))
			.run((context) -> assertThat(context).doesNotHaveBean(WebClientErrorExtractor.class));
	}

	@Test
	void whenWebClientIsPresentItsExtractorIsDefined() {
		this.runner.run((context) -> assertThat(context).hasSingleBean(WebClientErrorExtractor.class));
	}

	@Test
	void whenTheOpenAiSdkIsAbsentNoSdkExtractorIsDefined() {
		this.runner.withClassLoader(new FilteredClassLoader("com.openai"))
			.run((context) -> assertThat(context).doesNotHaveBean(OpenAiSdkErrorExtractor.class));
	}

	@Test
	void whenATargetOverridesItsBreakerItsDomainUsesTheOverride() {
		this.runner.withPropertyValues("llm.resilience.targets.secondary.breaker.minimum-calls=3")
			.run((context) -> assertThat(context.getBean(LlmResilience.class)
				.state()
				.target("secondary")
				.breaker()
				.settings()
				.minimumCalls()).isEqualTo(3));
	}

	@Test
	void whenATargetOverridesItsStreamTimeoutsItsRuntimeUsesThem() {
		this.runner
			.withPropertyValues("llm.resilience.targets.secondary.timeouts.first-token=2s",
					"llm.resilience.timeouts.adaptive.enabled=false")
			.run((context) -> {
				LlmResilience resilience = context.getBean(LlmResilience.class);
				assertThat(resilience.state().target("secondary").firstTokenTimeout().current())
					.isEqualTo(Duration.ofSeconds(2));
				assertThat(resilience.state().target("primary").firstTokenTimeout().current())
					.isEqualTo(Duration.ofSeconds(5));
				assertThat(resilience.state().target("primary").attemptTimeout().current())
					.isEqualTo(Duration.ofSeconds(30));
			});
	}

	@Test
	void whenADurationIsBeyondAYearStartupFailsNamingThePropertyInsteadOfOverflowing() {
		this.runner.withPropertyValues("llm.resilience.retry.backoff-max=200000d").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(analyze(context.getStartupFailure()).getDescription())
				.contains("Property: llm.resilience.retry.backoff-max")
				.contains("at most 366 days");
		});
	}

	@Test
	void whenTheCallTimeoutIsZeroStartupFailsNamingIt() {
		this.runner.withPropertyValues("llm.resilience.timeouts.call=0s").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(analyze(context.getStartupFailure()).getDescription())
				.contains("Property: llm.resilience.timeouts.call")
				.contains("must be a positive duration");
		});
	}

	@Test
	void whenTheSlowFirstTokenDurationIsNotBelowTheFirstTokenTimeoutStartupFailsNamingBoth() {
		this.runner.withPropertyValues("llm.resilience.breaker.slow-first-token-duration=5s").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(analyze(context.getStartupFailure()).getDescription())
				.contains("Property: llm.resilience.breaker.slow-first-token-duration")
				.contains("must be below llm.resilience.timeouts.first-token");
		});
	}

	@Test
	void whenTheSlowFirstTokenDurationIsUnsetItIsSixtyPercentOfTheTargetsFirstTokenTimeout() {
		this.runner.withPropertyValues("llm.resilience.targets.secondary.timeouts.first-token=2s").run((context) -> {
			LlmResilience resilience = context.getBean(LlmResilience.class);
			assertThat(resilience.state().target("primary").breaker().settings().slowFirstTokenDuration())
				.isEqualTo(Duration.ofSeconds(3));
			assertThat(resilience.state().target("secondary").breaker().settings().slowFirstTokenDuration())
				.isEqualTo(Duration.ofMillis(1200));
		});
	}

	@Test
	void whenTheHalfOpenTimeoutIsNotAboveTheAttemptTimeoutStartupFailsNamingIt() {
		this.runner.withPropertyValues("llm.resilience.breaker.half-open-timeout=30s").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(analyze(context.getStartupFailure()).getDescription())
				.contains("Property: llm.resilience.breaker.half-open-timeout")
				.contains("must be above llm.resilience.timeouts.attempt");
		});
	}

	@Test
	void whenTheHalfOpenTimeoutIsSetTheBreakersUseIt() {
		this.runner.withPropertyValues("llm.resilience.breaker.half-open-timeout=2m")
			.run((context) -> assertThat(context.getBean(LlmResilience.class)
				.state()
				.target("primary")
				.breaker()
				.settings()
				.halfOpenTimeout()).isEqualTo(Duration.ofMinutes(2)));
	}

	@Test
	void whenUnknownExceptionsAreSetToProviderThePropertyBinds() {
		this.runner.withPropertyValues("llm.resilience.classification.unknown-exceptions=provider")
			.run((context) -> assertThat(
					context.getBean(LlmResilienceProperties.class).getClassification().getUnknownExceptions())
				.isEqualTo(io.github.llmresilience.execute.UnknownExceptions.PROVIDER));
	}

	@Test
	void whenAnUnclassifiedListenerBeanThrowsTheOtherListenersAreStillTold() {
		List<String> told = new CopyOnWriteArrayList<>();
		this.runner.withBean("failingListener", io.github.llmresilience.classify.UnclassifiedListener.class,
				() -> (provider, status, type) -> {
					throw new IllegalStateException("listener bug");
				})
			.withBean("countingListener", io.github.llmresilience.classify.UnclassifiedListener.class,
					() -> (provider, status, type) -> told.add(provider + "/" + status + "/" + type))
			.run((context) -> {
				io.github.llmresilience.classify.Verdict verdict = context.getBean(LlmResilience.class)
					.classify("primary", io.github.llmresilience.classify.ProviderResponse.of(418, Map.of(),
							"{\"error\":{\"type\":\"teapot_error\"}}"));
				assertThat(verdict.outcome()).isEqualTo(io.github.llmresilience.classify.Outcome.REQUEST);
				assertThat(told).containsExactly("openai/418/teapot_error");
			});
	}

	@Test
	void whenTheAdaptiveMultiplierIsOutOfRangeStartupFailsNamingTheRange() {
		this.runner.withPropertyValues("llm.resilience.timeouts.adaptive.multiplier=0.5").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(analyze(context.getStartupFailure()).getDescription())
				.contains("Property: llm.resilience.timeouts.adaptive.multiplier")
				.contains("must be between 1 and 100");
		});
	}

	@Test
	void whenTheStallTimeoutIsZeroStartupFailsNamingTheProperty() {
		this.runner.withPropertyValues("llm.resilience.timeouts.stall=0s").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(analyze(context.getStartupFailure()).getDescription())
				.contains("Property: llm.resilience.timeouts.stall")
				.contains("must be a positive duration");
		});
	}

	@Test
	void targetPropertiesNeverShowTheApiKey() {
		this.runner.run((context) -> assertThat(
				context.getBean(LlmResilienceProperties.class).getTargets().get("primary").toString())
			.doesNotContain("DO-NOT-LEAK")
			.contains("apiKey=******"));
	}

	private static FailureAnalysis analyze(Throwable failure) {
		Throwable cause = failure;
		while (cause != null && !(cause instanceof InvalidLlmResiliencePropertiesException)) {
			cause = cause.getCause();
		}
		assertThat(cause).as("an InvalidLlmResiliencePropertiesException in %s", failure).isNotNull();
		FailureAnalysis analysis = new InvalidLlmResiliencePropertiesFailureAnalyzer().analyze(failure);
		assertThat(analysis).isNotNull();
		return analysis;
	}

	@Configuration(proxyBeanMethods = false)
	static class OllamaClassifierConfiguration {

		@Bean
		ProviderErrorClassifier ollamaClassifier() {
			return new ProviderErrorClassifier() {
				@Override
				public String provider() {
					return "llamafile";
				}

				@Override
				public Verdict classify(ProviderResponse response) {
					return Verdict.of(Outcome.QUOTA);
				}
			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OpenAiOverrideConfiguration {

		@Bean
		ProviderErrorClassifier myOpenAiClassifier() {
			return new ProviderErrorClassifier() {
				@Override
				public String provider() {
					return "openai";
				}

				@Override
				public Verdict classify(ProviderResponse response) {
					return Verdict.of(Outcome.QUOTA);
				}
			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnExecutorConfiguration {

		@Bean
		LlmResilience myResilience() {
			return LlmResilience.builder().build();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class FixedClockConfiguration {

		static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");

		@Bean
		Clock clock() {
			return Clock.fixed(NOW, ZoneOffset.UTC);
		}

	}

}
