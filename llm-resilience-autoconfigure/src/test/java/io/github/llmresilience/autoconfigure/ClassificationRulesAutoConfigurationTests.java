package io.github.llmresilience.autoconfigure;

import java.time.Instant;

import io.github.llmresilience.classify.ClassificationRules;
import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.RecentUnclassified;
import io.github.llmresilience.execute.LlmRejectedException;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Classification rules in {@code application.yml}: a rule changes a verdict with no code,
 * over real HTTP; a rule that cannot work stops startup naming {@code rules[i]} and what
 * is allowed.
 */
class ClassificationRulesAutoConfigurationTests {

	/**
	 * Groq's per-minute limit: 4251 tokens fit under 7000 once the window clears, so the
	 * provider's table reads a wait. This application knows better: its prompts are
	 * estimates ("~"), and it wants them rejected rather than waited for.
	 */
	private static final String GROQ_TOKENS = "{\"error\":{\"message\":\"Rate limit reached for model "
			+ "`llama3-70b-8192` in organization `org_1` on tokens per minute (TPM): Limit 7000, Used 5747, "
			+ "Requested ~4251. Please try again in 59.977s. Visit https://console.groq.com/docs/rate-limits for "
			+ "more information.\",\"type\":\"tokens\",\"code\":\"rate_limit_exceeded\"}}";

	private static final String OK = "{\"choices\":[{\"message\":{\"content\":\"from secondary\"},"
			+ "\"finish_reason\":\"stop\"}]}";

	private static final FakeProvider provider = new FakeProvider();

	private final WebClient http = WebClient.create();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(LlmResilienceAutoConfiguration.class, LlmResilienceEventsAutoConfiguration.class))
		.withPropertyValues("llm.resilience.targets.primary.provider=openai-compatible",
				"llm.resilience.targets.primary.model=llama3-70b-8192",
				"llm.resilience.targets.primary.base-url=" + provider.baseUrl("primary"),
				"llm.resilience.targets.secondary.provider=openai", "llm.resilience.targets.secondary.model=gpt-4o",
				"llm.resilience.targets.secondary.base-url=" + provider.baseUrl("secondary"),
				"llm.resilience.chains.chat=primary,secondary", "llm.resilience.retry.max-attempts=1");

	@AfterAll
	static void stopProvider() {
		provider.close();
	}

	@BeforeEach
	void answers() {
		provider.resetCounts();
		provider.always("primary", Reply.json(429, GROQ_TOKENS));
		provider.always("secondary", Reply.ok(OK));
	}

	@Test
	void withoutARuleTheTableReadsAWaitAndTheChainFailsOver() {
		this.runner.run((context) -> {
			assertThat(chat(context.getBean(LlmResilience.class))).contains("from secondary");
			assertThat(provider.requests("secondary")).isOne();
		});
	}

	@Test
	void aRuleInConfigurationChangesTheVerdictWithNoCode() {
		this.runner
			.withPropertyValues("llm.resilience.classification.rules[0].provider=openai-compatible",
					"llm.resilience.classification.rules[0].status=429",
					"llm.resilience.classification.rules[0].type=tokens",
					"llm.resilience.classification.rules[0].message-contains=Requested ~",
					"llm.resilience.classification.rules[0].outcome=REQUEST")
			.run((context) -> {
				LlmResilience resilience = context.getBean(LlmResilience.class);
				assertThat(resilience.classificationRules().rules()).singleElement()
					.satisfies((rule) -> assertThat(rule.outcome()).isEqualTo(Outcome.REQUEST));

				Throwable failure = catchThrowable(() -> chat(resilience));

				assertThat(failure).isInstanceOf(LlmRejectedException.class);
				LlmRejectedException rejected = (LlmRejectedException) failure;
				assertThat(rejected.verdict().outcome()).isEqualTo(Outcome.REQUEST);
				assertThat(rejected.verdict().rule()).isEqualTo("rules[0]");
				assertThat(rejected.getMessage()).endsWith("REQUEST(rate_limit_exceeded) by rules[0]");
				assertThat(provider.requests("secondary")).as("the caller's bug is not failed over").isZero();
				assertThat(context.getBean(RecentUnclassified.class).list()).singleElement()
					.satisfies((entry) -> assertThat(entry.decidedBy()).isEqualTo("rules[0]"));
			});
	}

	@Test
	void aRuleWithAWaitGivesItToAnAnswerThatNamesNone() {
		provider.always("primary", Reply.json(418, "{\"error\":{\"message\":\"I am a teapot\",\"type\":\"teapot\"}}"));
		this.runner
			.withPropertyValues("llm.resilience.classification.rules[0].status=4xx",
					"llm.resilience.classification.rules[0].type=teapot",
					"llm.resilience.classification.rules[0].outcome=throttled",
					"llm.resilience.classification.rules[0].wait=42s")
			.run((context) -> {
				LlmResilience resilience = context.getBean(LlmResilience.class);
				Instant before = Instant.now();
				assertThat(chat(resilience)).contains("from secondary");
				Instant after = Instant.now();

				// The system clock: the gate ends 42 s after the answer, within the call.
				Instant gatedUntil = resilience.state().target("primary").scope().gatedUntil();
				assertThat(gatedUntil).isBetween(before.plusSeconds(42).minusMillis(1),
						after.plusSeconds(42).plusMillis(1));
			});
	}

	@Test
	void aRuleWithAnUnknownOutcomeOrNoConditionStopsStartupNamingIt() {
		this.runner
			.withPropertyValues("llm.resilience.classification.rules[0].status=429",
					"llm.resilience.classification.rules[0].outcome=RETRY",
					"llm.resilience.classification.rules[1].outcome=QUOTA",
					"llm.resilience.classification.rules[2].status=4x",
					"llm.resilience.classification.rules[2].outcome=QUOTA")
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = analyze(context.getStartupFailure());
				assertThat(analysis.getDescription())
					.contains("Property: llm.resilience.classification.rules[0].outcome")
					.contains("Value: 'RETRY'")
					.contains("AVAILABILITY, THROTTLED, QUOTA, CREDENTIAL, REQUEST, CONTENT_FILTER")
					.contains("Property: llm.resilience.classification.rules[1]\n")
					.contains("at least one condition")
					.contains("Property: llm.resilience.classification.rules[2].status")
					.contains("Value: '4x'");
			});
	}

	@Test
	void aRuleNamingAnUnknownProviderStopsStartupListingTheKnownOnes() {
		this.runner
			.withPropertyValues("llm.resilience.classification.rules[0].provider=opneai",
					"llm.resilience.classification.rules[0].outcome=QUOTA")
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = analyze(context.getStartupFailure());
				assertThat(analysis.getDescription())
					.contains("Property: llm.resilience.classification.rules[0].provider")
					.contains("Value: 'opneai'")
					.contains("openai, azure-openai, anthropic");
			});
	}

	@Test
	void providerOverloadDurationsAreCheckedAtStartup() {
		this.runner
			.withPropertyValues("llm.resilience.provider-overload.default-duration=10m",
					"llm.resilience.provider-overload.max-duration=5m")
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = analyze(context.getStartupFailure());
				assertThat(analysis.getDescription())
					.contains("Property: llm.resilience.provider-overload.default-duration")
					.contains("llm.resilience.provider-overload.max-duration (PT5M)");
			});
	}

	@Test
	void anApplicationMayProvideItsOwnRulesObject() {
		ClassificationRules own = new ClassificationRules();
		this.runner.withBean(ClassificationRules.class, () -> own).run((context) -> {
			assertThat(context.getBean(LlmResilience.class).classificationRules()).isSameAs(own);
			assertThat(context.getBeansOfType(ClassificationRules.class)).hasSize(1);
		});
	}

	private String chat(LlmResilience resilience) {
		return resilience
			.execute("chat",
					(attempt) -> this.http.post()
						.uri(attempt.target().baseUrl() + "/v1/chat/completions")
						.bodyValue("{\"model\":\"" + attempt.target().model() + "\"}")
						.retrieve()
						.bodyToMono(String.class))
			.block();
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

}
