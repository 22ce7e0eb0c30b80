package io.github.llmresilience.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

import io.github.llmresilience.autoconfigure.InvalidLlmResiliencePropertiesException.Problem;
import io.github.llmresilience.autoconfigure.LlmResilienceProperties.TargetProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Startup validation of {@link LlmResilienceProperties}: the settings records' ranges,
 * each named by its property, and the rules between properties.
 */
class LlmResiliencePropertiesTests {

	private static final String POSITIVE = "must be a positive duration of at most 366 days";

	private static final String NOT_NEGATIVE = "must be zero or a positive duration of at most 366 days";

	@Test
	void theDefaultsHaveNoProblem() {
		assertThat(PropertiesSettings.problems(new LlmResilienceProperties())).isEmpty();
	}

	@ParameterizedTest(name = "{1}")
	@MethodSource("outOfRange")
	void aValueTheSettingsRecordRejectsIsNamedByItsProperty(Consumer<LlmResilienceProperties> change, String property,
			String value, String allowed) {
		assertThat(problems(change)).contains(new Problem(property, value, allowed));
	}

	static Stream<Arguments> outOfRange() {
		return Stream.of(
				problem((p) -> p.getBreaker().setSlidingWindowSize(0), "breaker.sliding-window-size", "0",
						"must be between 1 and 10000"),
				problem((p) -> p.getBreaker().setMinimumCalls(10_001), "breaker.minimum-calls", "10001",
						"must be between 1 and 10000"),
				problem((p) -> p.getBreaker().setFailureRateThreshold(0.5f), "breaker.failure-rate-threshold", "0.5",
						"must be between 1 and 100"),
				problem((p) -> p.getBreaker().setSlowCallDuration(Duration.ZERO), "breaker.slow-call-duration", "PT0S",
						POSITIVE),
				problem((p) -> p.getBreaker().setSlowCallRateThreshold(101), "breaker.slow-call-rate-threshold",
						"101.0", "must be between 1 and 100"),
				problem((p) -> p.getBreaker().setOpenDuration(Duration.ZERO), "breaker.open-duration", "PT0S",
						POSITIVE),
				problem((p) -> p.getBreaker().setOpenDurationMax(Duration.ofSeconds(10)), "breaker.open-duration-max",
						"PT10S", "must be at least llm.resilience.breaker.open-duration (PT30S)"),
				problem((p) -> p.getBreaker().setHalfOpenCalls(101), "breaker.half-open-calls", "101",
						"must be between 1 and 100"),
				problem((p) -> p.getBreaker().setSlowFirstTokenDuration(Duration.ZERO),
						"breaker.slow-first-token-duration", "PT0S", POSITIVE),
				problem((p) -> p.getBreaker().setHalfOpenTimeout(Duration.ofDays(400)), "breaker.half-open-timeout",
						"PT9600H", POSITIVE),
				problem((p) -> p.getRetry().setMaxAttempts(0), "retry.max-attempts", "0", "must be between 1 and 10"),
				problem((p) -> p.getRetry().setBackoffBase(Duration.ofMillis(-1)), "retry.backoff-base", "PT-0.001S",
						NOT_NEGATIVE),
				problem((p) -> p.getRetry().setBackoffMax(Duration.ofMillis(100)), "retry.backoff-max", "PT0.1S",
						"must be at least llm.resilience.retry.backoff-base (PT0.5S)"),
				problem((p) -> p.getRetry().setBudgetRatio(1.5), "retry.budget-ratio", "1.5",
						"must be between 0 and 1"),
				problem((p) -> p.getRetry().setBudgetWindow(Duration.ZERO), "retry.budget-window", "PT0S", POSITIVE),
				problem((p) -> p.getRetry().setBudgetMinimum(-1), "retry.budget-minimum", "-1",
						"must be between 0 and 1000000"),
				problem((p) -> p.getThrottle().setDefaultWait(Duration.ZERO), "throttle.default-wait", "PT0S",
						POSITIVE),
				problem((p) -> p.getThrottle().setDefaultWait(Duration.ofMinutes(10)), "throttle.default-wait", "PT10M",
						"must not exceed llm.resilience.throttle.max-wait (PT5M)"),
				problem((p) -> p.getThrottle().setMaxWait(Duration.ofDays(400)), "throttle.max-wait", "PT9600H",
						POSITIVE),
				problem((p) -> p.getThrottle().setMinWait(Duration.ofSeconds(5)), "throttle.min-wait", "PT5S",
						"must be zero or more and below llm.resilience.throttle.default-wait (PT5S)"),
				problem((p) -> p.getThrottle().setQuotaThreshold(Duration.ZERO), "throttle.quota-threshold", "PT0S",
						POSITIVE),
				problem((p) -> p.getThrottle().setQuotaThreshold(Duration.ofMinutes(1)), "throttle.quota-threshold",
						"PT1M", "must be at least llm.resilience.throttle.max-wait (PT5M)"),
				problem((p) -> p.getQuota().setDefaultPark(Duration.ZERO), "quota.default-park", "PT0S", POSITIVE),
				problem((p) -> p.getQuota().setMaxPark(Duration.ofMinutes(30)), "quota.default-park", "PT1H",
						"must not exceed llm.resilience.quota.max-park (PT30M)"),
				problem((p) -> p.getCredential().setLockAfter(101), "credential.lock-after", "101",
						"must be between 1 and 100"),
				problem((p) -> p.getCredential().setLockDuration(null), "credential.lock-duration", "null", POSITIVE),
				problem((p) -> p.getCredential().setLockDurationMax(Duration.ofSeconds(30)),
						"credential.lock-duration-max", "PT30S",
						"must be at least llm.resilience.credential.lock-duration (PT1M)"),
				problem((p) -> p.getTimeouts().setAttempt(Duration.ZERO), "timeouts.attempt", "PT0S", POSITIVE),
				problem((p) -> p.getTimeouts().setFirstToken(Duration.ZERO), "timeouts.first-token", "PT0S", POSITIVE),
				problem((p) -> p.getTimeouts().setStall(Duration.ZERO), "timeouts.stall", "PT0S", POSITIVE),
				problem((p) -> p.getTimeouts().setCall(Duration.ZERO), "timeouts.call", "PT0S", POSITIVE),
				problem((p) -> p.getTimeouts().getAdaptive().setMinSamples(0), "timeouts.adaptive.min-samples", "0",
						"must be between 1 and 1000000"),
				problem((p) -> p.getTimeouts().getAdaptive().setMultiplier(0.5), "timeouts.adaptive.multiplier", "0.5",
						"must be between 1 and 100"),
				problem((p) -> p.getTimeouts().getAdaptive().setFloor(Duration.ZERO), "timeouts.adaptive.floor", "PT0S",
						POSITIVE),
				problem((p) -> p.getTimeouts().getAdaptive().setFloorRatio(Double.NaN), "timeouts.adaptive.floor-ratio",
						"NaN", "must be between 0 and 1"));
	}

	@Test
	void aTargetsOverrideIsNamedByTheTargetsProperty() {
		assertThat(problems((p) -> target(p).getBreaker().setMinimumCalls(0))).containsExactly(
				new Problem("llm.resilience.targets.a.breaker.minimum-calls", "0", "must be between 1 and 10000"));
		assertThat(problems((p) -> target(p).getTimeouts().setStall(Duration.ZERO)))
			.containsExactly(new Problem("llm.resilience.targets.a.timeouts.stall", "PT0S", POSITIVE));
	}

	@Test
	void aRuleBetweenAnOverrideAndADefaultNamesBoth() {
		assertThat(problems((p) -> target(p).getBreaker().setOpenDuration(Duration.ofHours(1))))
			.containsExactly(new Problem("llm.resilience.breaker.open-duration-max", "PT15M",
					"must be at least llm.resilience.targets.a.breaker.open-duration (PT1H)"));
		assertThat(problems((p) -> target(p).getBreaker().setOpenDurationMax(Duration.ofSeconds(10))))
			.containsExactly(new Problem("llm.resilience.targets.a.breaker.open-duration-max", "PT10S",
					"must be at least llm.resilience.breaker.open-duration (PT30S)"));
	}

	@Test
	void anInvalidDefaultIsNamedOnceThoughATargetOverridesAnother() {
		assertThat(problems((p) -> {
			p.getBreaker().setSlidingWindowSize(0);
			target(p).getBreaker().setMinimumCalls(3);
		})).containsExactly(
				new Problem("llm.resilience.breaker.sliding-window-size", "0", "must be between 1 and 10000"));
	}

	@Test
	void problemsOfDifferentGroupsAreAllNamed() {
		assertThat(problems((p) -> {
			p.getRetry().setMaxAttempts(0);
			p.getQuota().setDefaultPark(Duration.ZERO);
			p.getCredential().setLockAfter(0);
			p.getTimeouts().getAdaptive().setFloorRatio(2);
		})).extracting(Problem::property)
			.containsExactly("llm.resilience.retry.max-attempts", "llm.resilience.quota.default-park",
					"llm.resilience.credential.lock-after", "llm.resilience.timeouts.adaptive.floor-ratio");
	}

	@Test
	void zeroBackoffAndAZeroMinimumWaitAreAllowedAsTheRecordsAllowThem() {
		assertThat(problems((p) -> {
			p.getRetry().setBackoffBase(Duration.ZERO);
			p.getRetry().setBackoffMax(Duration.ZERO);
			p.getThrottle().setMinWait(Duration.ZERO);
		})).isEmpty();
	}

	@Test
	void aShortDefaultWaitStartsWithoutAMinimumWaitOfItsOwn() {
		assertThat(problems((p) -> p.getThrottle().setDefaultWait(Duration.ofMillis(50)))).isEmpty();
		assertThat(problems((p) -> {
			p.getThrottle().setDefaultWait(Duration.ofMillis(50));
			p.getThrottle().setMinWait(Duration.ofMillis(60));
		})).extracting(Problem::property).containsExactly("llm.resilience.throttle.min-wait");
	}

	@Test
	void aNameTheFleetCouldNotCarryIsNamedByItsProperty() {
		assertThat(problems((p) -> {
			TargetProperties target = target(p);
			target.setAccount("prod,eu");
			target.setModel("gpt-4o\n");
			p.getTargets().put("b\tc", new TargetProperties());
			p.getTargets().get("b\tc").setProvider("openai");
			p.getChains().put("chat", List.of("a"));
			p.getChains().put("batch\nnight", List.of("a"));
		})).extracting(Problem::property)
			.containsExactlyInAnyOrder("llm.resilience.targets.a.account", "llm.resilience.targets.a.model",
					"llm.resilience.targets.b\tc", "llm.resilience.chains.batch\nnight");
	}

	@Test
	void aFallbackKeyedByAnUnknownChainIsNamedByItsProperty() {
		assertThat(problems((p) -> {
			target(p);
			p.getChains().put("chat", List.of("a"));
			p.getFallbacks().put("caht", "cachedAnswers");
		})).containsExactly(new Problem("llm.resilience.fallbacks.caht", "'cachedAnswers'",
				"must be keyed by a chain configured under llm.resilience.chains; known chains: [chat]"));
	}

	@Test
	void aBlankFallbackNameIsNamedByItsProperty() {
		assertThat(problems((p) -> {
			target(p);
			p.getChains().put("chat", List.of("a"));
			p.getFallbacks().put("chat", " ");
		})).containsExactly(new Problem("llm.resilience.fallbacks.chat", "' '", "must name an LlmFallback bean"));
	}

	private static Arguments problem(Consumer<LlmResilienceProperties> change, String property, String value,
			String allowed) {
		return Arguments.of(change, LlmResilienceProperties.PREFIX + "." + property, value, allowed);
	}

	private static List<Problem> problems(Consumer<LlmResilienceProperties> change) {
		LlmResilienceProperties properties = new LlmResilienceProperties();
		change.accept(properties);
		return PropertiesSettings.problems(properties);
	}

	private static TargetProperties target(LlmResilienceProperties properties) {
		return properties.getTargets().computeIfAbsent("a", (name) -> {
			TargetProperties target = new TargetProperties();
			target.setProvider("openai");
			return target;
		});
	}

}
