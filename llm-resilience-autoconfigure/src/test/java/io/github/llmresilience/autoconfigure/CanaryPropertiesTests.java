package io.github.llmresilience.autoconfigure;

import java.net.ConnectException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

import io.github.llmresilience.autoconfigure.InvalidLlmResiliencePropertiesException.Problem;
import io.github.llmresilience.autoconfigure.LlmResilienceProperties.TargetProperties;
import io.github.llmresilience.canary.CanaryJudge;
import io.github.llmresilience.canary.CanaryProbe;
import io.github.llmresilience.canary.CanarySettings;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.state.TargetState.BreakerState.Status;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import io.github.llmresilience.test.ManualTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The canary's properties: {@code llm.resilience.breaker.canary.*} and a target's
 * {@code breaker.canary.*} are validated at startup naming the property, and the
 * auto-configuration gives the failure domains their canaries (the built-in prompt
 * sender, or the application's {@link CanaryProbe} and {@link CanaryJudge} beans).
 */
class CanaryPropertiesTests {

	private final FakeProvider provider = new FakeProvider();

	private final ManualTime time = new ManualTime();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LlmResilienceAutoConfiguration.class))
		.withBean(Clock.class, () -> this.time)
		.withBean("llmResilienceScheduler", Scheduler.class, () -> this.time)
		.withPropertyValues("llm.resilience.targets.primary.provider=openai",
				"llm.resilience.targets.primary.model=gpt-4o",
				"llm.resilience.targets.primary.base-url=" + this.provider.baseUrl("primary"),
				"llm.resilience.targets.primary.api-key=sk-properties-secret", "llm.resilience.chains.chat=primary",
				"llm.resilience.breaker.sliding-window-size=2", "llm.resilience.breaker.minimum-calls=2",
				"llm.resilience.retry.max-attempts=1");

	@AfterEach
	void close() {
		this.provider.close();
	}

	@ParameterizedTest(name = "{1}")
	@MethodSource("outOfRange")
	void aCanaryValueOutOfRangeIsNamedByItsProperty(Consumer<LlmResilienceProperties> change, String property,
			String value, String allowed) {
		LlmResilienceProperties properties = new LlmResilienceProperties();
		properties.getTargets().put("primary", new TargetProperties());
		properties.getTargets().get("primary").setProvider("openai");
		change.accept(properties);
		assertThat(PropertiesSettings.problems(properties))
			.contains(new Problem("llm.resilience." + property, value, allowed));
	}

	static Stream<Arguments> outOfRange() {
		return Stream.of(
				problem((p) -> p.getBreaker().getCanary().setTimeout(Duration.ZERO), "breaker.canary.timeout", "PT0S",
						"must be a positive duration of at most 366 days"),
				problem((p) -> p.getBreaker().getCanary().setTimeout(Duration.ofMinutes(6)), "breaker.canary.timeout",
						"PT6M", "must be a positive duration of at most PT5M"),
				problem((p) -> p.getBreaker().getCanary().setPrompt(" "), "breaker.canary.prompt", "' '",
						"must not be blank"),
				problem((p) -> p.getBreaker().getCanary().setMaxTokens(0), "breaker.canary.max-tokens", "0",
						"must be between 1 and 4096"),
				problem((p) -> p.getBreaker().getCanary().setJudge(CanarySettings.Judge.REGEX),
						"breaker.canary.pattern", "null", "must be set when the judge is regex"),
				problem((p) -> {
					p.getBreaker().getCanary().setJudge(CanarySettings.Judge.REGEX);
					p.getBreaker().getCanary().setPattern("(ok");
				}, "breaker.canary.pattern", "'(ok'", "must be a regular expression (Unclosed group near index 3)"),
				problem((p) -> p.getTargets().get("primary").getBreaker().getCanary().setTimeout(Duration.ofDays(-1)),
						"targets.primary.breaker.canary.timeout", "PT-24H",
						"must be a positive duration of at most 366 days"));
	}

	private static Arguments problem(Consumer<LlmResilienceProperties> change, String property, String value,
			String allowed) {
		return Arguments.of(change, property, value, allowed);
	}

	@Test
	void theDefaultsHaveNoCanaryProblem() {
		assertThat(PropertiesSettings.problems(new LlmResilienceProperties())).isEmpty();
	}

	@Test
	void anUnknownJudgeFailsStartupNamingTheProperty() {
		this.runner
			.withPropertyValues("llm.resilience.breaker.canary.prompt=ping", "llm.resilience.breaker.canary.judge=xml")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("xml");
				assertThat(context.getStartupFailure()).hasStackTraceContaining("llm.resilience.breaker.canary.judge");
			});
	}

	@Test
	void aPredicateJudgeWithoutACanaryJudgeBeanFailsStartupNamingTheProperty() {
		this.runner
			.withPropertyValues("llm.resilience.breaker.canary.prompt=ping",
					"llm.resilience.breaker.canary.judge=predicate")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(problems(context.getStartupFailure())).contains(
						new Problem("llm.resilience.breaker.canary.judge", "predicate", "needs a CanaryJudge bean"));
			});
	}

	@Test
	void aPromptForAProviderTheSenderDoesNotSpeakFailsStartup() {
		this.runner
			.withPropertyValues("llm.resilience.targets.primary.provider=bedrock",
					"llm.resilience.breaker.canary.prompt=ping")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(problems(context.getStartupFailure()))
					.anySatisfy((problem) -> assertThat(problem.allowed()).contains("Target 'primary'")
						.contains("define a CanaryProbe bean"));
			});
	}

	@Test
	void theConfiguredPromptIsSentWhenTheOpenTimeEndsAndItsAnswerClosesTheBreaker() {
		this.provider.always("primary", Reply.ok(FakeProvider.openAiAnswer("{\"ok\":true}")));
		this.runner
			.withPropertyValues("llm.resilience.breaker.canary.prompt=Reply with {\"ok\":true}",
					"llm.resilience.breaker.canary.judge=json")
			.run((context) -> {
				LlmResilience resilience = context.getBean(LlmResilience.class);
				open(resilience);
				this.time.advance(Duration.ofSeconds(30));
				await().atMost(Duration.ofSeconds(10)).until(() -> status(resilience) == Status.CLOSED);
				assertThat(this.provider.requests("primary")).isOne();
				assertThat(this.provider.lastBody("primary")).contains("Reply with {\\\"ok\\\":true}");
				assertThat(this.provider.lastHeader("primary", "Authorization"))
					.containsExactly("Bearer sk-properties-secret");
			});
	}

	@Test
	void aTargetMayTurnItsCanaryOff() {
		this.runner
			.withPropertyValues("llm.resilience.breaker.canary.prompt=ping",
					"llm.resilience.targets.primary.breaker.canary.enabled=false")
			.run((context) -> {
				LlmResilience resilience = context.getBean(LlmResilience.class);
				open(resilience);
				this.time.advance(Duration.ofSeconds(31));
				assertThat(status(resilience)).isEqualTo(Status.OPEN);
				assertThat(this.provider.requests("primary")).isZero();
				// A call is the trial again.
				assertThat(resilience.isUsable("primary")).isTrue();
			});
	}

	@Test
	void aCanaryProbeBeanSendsEveryCanaryWithoutAPrompt() {
		this.runner.withBean(CanaryProbe.class, () -> (request) -> Mono.just("pong " + request.target().name()))
			.withBean(CanaryJudge.class, () -> (target, answer) -> answer.equals("pong primary"))
			.withPropertyValues("llm.resilience.breaker.canary.judge=predicate")
			.run((context) -> {
				LlmResilience resilience = context.getBean(LlmResilience.class);
				open(resilience);
				this.time.advance(Duration.ofSeconds(30));
				await().atMost(Duration.ofSeconds(10)).until(() -> status(resilience) == Status.CLOSED);
				assertThat(this.provider.requests("primary")).isZero();
			});
	}

	/** Two connection failures open the primary's breaker (window 2, minimum 2). */
	private static void open(LlmResilience resilience) {
		for (int i = 0; i < 2; i++) {
			try {
				resilience.call("chat", (attempt) -> {
					throw new ConnectException("refused");
				});
			}
			catch (RuntimeException ex) {
				// Unavailable: the provider's failure, counted.
			}
		}
		assertThat(status(resilience)).isEqualTo(Status.OPEN);
	}

	private static Status status(LlmResilience resilience) {
		return resilience.state().target("primary").breaker().status();
	}

	private static List<Problem> problems(Throwable failure) {
		Throwable cause = failure;
		while (cause != null && !(cause instanceof InvalidLlmResiliencePropertiesException)) {
			cause = cause.getCause();
		}
		assertThat(cause).as("an InvalidLlmResiliencePropertiesException in %s", failure).isNotNull();
		return ((InvalidLlmResiliencePropertiesException) cause).problems();
	}

}
