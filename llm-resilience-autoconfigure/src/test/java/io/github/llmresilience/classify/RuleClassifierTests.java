package io.github.llmresilience.classify;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.llmresilience.classify.vendor.BuiltInClassifiers;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The user's rules in front of a provider's table: first match in order decides, then the
 * table, then the default; every verdict names the rule that decided it; an edit applies
 * from the next answer; garbage never throws.
 */
class RuleClassifierTests {

	private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-03-24T00:00:00Z"), ZoneOffset.UTC);

	/** Groq's answer for a request larger than the per-minute limit, as Groq words it. */
	private static final String GROQ_TOKENS = "{\"error\":{\"message\":\"Rate limit reached for model `llama3-70b-8192` "
			+ "on tokens per minute (TPM): Limit 7000, Used 3000, Requested ~4251. Please try again in 7.5s.\","
			+ "\"type\":\"tokens\",\"code\":\"rate_limit_exceeded\"}}";

	private static final String TEAPOT = "{\"error\":{\"message\":\"I am a teapot\",\"type\":\"teapot_error\"}}";

	private final List<String> reported = new ArrayList<>();

	private final UnclassifiedListener listener = new UnclassifiedListener() {

		@Override
		public void unclassified(String provider, int status, @Nullable String errorType) {
			RuleClassifierTests.this.reported.add("default " + status + " " + errorType);
		}

		@Override
		public void decidedByRule(String provider, int status, @Nullable String errorType, String rule) {
			RuleClassifierTests.this.reported.add(rule + " " + status + " " + errorType);
		}

	};

	@Test
	void withoutRulesTheProvidersTableDecides() {
		Verdict verdict = classifier(new ClassificationRules(), "openai-compatible")
			.classify(ProviderResponse.of(429, Map.of(), GROQ_TOKENS));

		assertThat(verdict.outcome()).isEqualTo(Outcome.THROTTLED);
		assertThat(verdict.rule()).isEqualTo(Verdict.BUILT_IN);
	}

	@Test
	void theFirstMatchingRuleDecidesAndSaysSo() {
		ClassificationRules rules = new ClassificationRules(
				List.of(ClassificationRule.parse("anthropic", "429", null, null, "QUOTA", null),
						ClassificationRule.parse("openai-compatible", "4xx", "tokens", "requested ~", "request", null),
						ClassificationRule.parse(null, "429", null, null, "AVAILABILITY", null)));

		Verdict verdict = classifier(rules, "openai-compatible")
			.classify(ProviderResponse.of(429, Map.of(), GROQ_TOKENS));

		assertThat(verdict.outcome()).isEqualTo(Outcome.REQUEST);
		assertThat(verdict.rule()).isEqualTo("rules[1]");
		assertThat(verdict.errorType()).contains("rate_limit_exceeded");
		assertThat(verdict.waitHint()).as("a request is never waited for").isEmpty();
		assertThat(verdict.toString()).endsWith("by rules[1]");
		assertThat(this.reported).containsExactly("rules[1] 429 rate_limit_exceeded");
	}

	@Test
	void everyConditionMustHold() {
		ClassificationRules rules = new ClassificationRules(
				List.of(ClassificationRule.parse(null, "5xx", "tokens", null, "REQUEST", null),
						ClassificationRule.parse(null, null, "tokens", "no such words", "REQUEST", null),
						ClassificationRule.parse("anthropic", null, "tokens", null, "REQUEST", null)));

		Verdict verdict = classifier(rules, "openai-compatible")
			.classify(ProviderResponse.of(429, Map.of(), GROQ_TOKENS));

		assertThat(verdict.rule()).isEqualTo(Verdict.BUILT_IN);
		assertThat(verdict.outcome()).isEqualTo(Outcome.THROTTLED);
	}

	@Test
	void aRuleTakesOverAnAnswerTheTableDefaultsAndItsWaitAppliesWhenTheAnswerNamesNone() {
		ClassificationRules rules = new ClassificationRules();
		ProviderErrorClassifier classifier = classifier(rules, "openai");
		Verdict before = classifier.classify(ProviderResponse.of(418, Map.of(), TEAPOT));
		assertThat(before.outcome()).isEqualTo(Outcome.REQUEST);
		assertThat(before.rule()).isEqualTo(Verdict.DEFAULT);

		rules.add(null, ClassificationRule.parse(null, "418", "teapot_error", null, "availability", "45s"), "test");
		Verdict after = classifier.classify(ProviderResponse.of(418, Map.of(), TEAPOT));

		assertThat(after.outcome()).isEqualTo(Outcome.AVAILABILITY);
		assertThat(after.rule()).isEqualTo("rules[0]");
		assertThat(after.waitHint()).contains(Duration.ofSeconds(45));
		Verdict withHeader = classifier.classify(ProviderResponse.of(418, Map.of("retry-after", List.of("3")), TEAPOT));
		assertThat(withHeader.waitHint()).as("the answer's own hint wins").contains(Duration.ofSeconds(3));
		assertThat(this.reported).containsExactly("default 418 teapot_error", "rules[0] 418 teapot_error",
				"rules[0] 418 teapot_error");
	}

	@Test
	void typesAreMatchedAgainstEveryTypeAndCodeFieldAndMessagesInAnyCase() {
		String bedrock = "{\"message\":\"Too many tokens, please wait before trying again.\"}";
		ClassificationRules rules = new ClassificationRules(List
			.of(ClassificationRule.parse("bedrock", null, "ThrottlingException", "TOO MANY TOKENS", "QUOTA", "1h")));

		Verdict verdict = classifier(rules, "bedrock").classify(ProviderResponse.of(429,
				Map.of("x-amzn-errortype", List.of("ThrottlingException:http://internal.amazon.com/coral/")), bedrock));

		assertThat(verdict.outcome()).isEqualTo(Outcome.QUOTA);
		assertThat(verdict.waitHint()).contains(Duration.ofHours(1));
		assertThat(
				classifier(rules, "bedrock")
					.classify(ProviderResponse
						.of(400, Map.of(),
								"{\"error\":{\"code\":\"x\",\"innererror\":{\"code\":\"ThrottlingException\"},"
										+ "\"message\":\"too many tokens\"}}"))
					.rule())
			.isEqualTo("rules[0]");
	}

	@Test
	void timeoutsAndConnectionFailuresAreMatchedByType() {
		ClassificationRules rules = new ClassificationRules(
				List.of(ClassificationRule.parse("openai", null, "timeout", null, "THROTTLED", "10s")));

		assertThat(classifier(rules, "openai").classify(ProviderResponse.timeout()).outcome())
			.isEqualTo(Outcome.THROTTLED);
		assertThat(classifier(rules, "openai").classify(ProviderResponse.connectionFailure(null)).rule())
			.isEqualTo(Verdict.BUILT_IN);
	}

	@Test
	void aRuleNeverTurnsASuccessIntoAFailure() {
		ClassificationRules rules = new ClassificationRules(
				List.of(ClassificationRule.parse(null, "2xx", null, null, "AVAILABILITY", null)));
		String ok = "{\"choices\":[{\"message\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}";

		assertThat(classifier(rules, "openai").classify(ProviderResponse.of(200, Map.of(), ok)).outcome())
			.isEqualTo(Outcome.SUCCESS);
		assertThat(
				classifier(rules, "openai").classify(ProviderResponse.streamEvent(null, "{\"choices\":[]}")).outcome())
			.isEqualTo(Outcome.SUCCESS);
	}

	@Test
	void garbageNeverThrowsAndNeverYieldsANegativeWait() {
		ClassificationRules rules = new ClassificationRules(
				List.of(ClassificationRule.parse(null, "4xx", "x", null, "THROTTLED", "5s"),
						ClassificationRule.parse(null, null, null, "\u0000", "AVAILABILITY", null),
						ClassificationRule.parse(null, "5xx", null, null, "QUOTA", null)));
		Random random = new Random(13);
		List<String> bodies = new ArrayList<>(List.of("", "{", "[", "{\"error\":", "{\"error\":{\"type\":[1,2]}}",
				"{\"error\":{\"code\":{\"a\":1},\"message\":7}}", "<html>502</html>", "null", "\"x\"",
				"{\"error\":{\"type\":\"x\"}}", "{\"error\":{\"type\":\"" + "x".repeat(5000) + "\"}}",
				"[".repeat(100_000), "{\"a\":".repeat(50_000)));
		for (int i = 0; i < 200; i++) {
			byte[] bytes = new byte[random.nextInt(512)];
			random.nextBytes(bytes);
			bodies.add(new String(bytes, StandardCharsets.ISO_8859_1));
		}
		for (String provider : BuiltInClassifiers.PROVIDER_IDS) {
			ProviderErrorClassifier classifier = classifier(rules, provider);
			for (String body : bodies) {
				for (int status : new int[] { 0, 200, 400, 429, 503, 529, 999, -1 }) {
					Map<String, List<String>> headers = Map.of("retry-after", List.of("-5"), "x-amzn-errortype",
							List.of(body.substring(0, Math.min(body.length(), 20))));
					Verdict verdict = classifier.classify(ProviderResponse.of(status, headers, body));
					assertThat(verdict).isNotNull();
					verdict.waitHint().ifPresent((hint) -> assertThat(hint.isNegative()).isFalse());
				}
				assertThat(classifier.classify(ProviderResponse.streamEvent("error", body))).isNotNull();
			}
		}
	}

	@Test
	void theRulesHolderTellsItsListenersOfEveryEditAndRefusesBadOnes() {
		ClassificationRules rules = new ClassificationRules();
		rules.knownProviders(BuiltInClassifiers.PROVIDER_IDS);
		List<ClassificationRules.Edit> edits = new ArrayList<>();
		rules.addListener(edits::add);
		rules.addListener((edit) -> {
			throw new IllegalStateException("a listener that throws changes nothing");
		});
		ClassificationRule first = ClassificationRule.parse("openai", "429", null, null, "QUOTA", null);
		ClassificationRule second = ClassificationRule.parse(null, "503", null, null, "THROTTLED", null);

		rules.add(null, first, "operator");
		rules.add(0, second, "operator");
		rules.replace(1, second, "operator");
		rules.remove(0, "operator");
		rules.replace(List.of(first, second), "fleet");

		assertThat(edits).extracting(ClassificationRules.Edit::action)
			.containsExactly(ClassificationRules.Edit.Action.ADDED, ClassificationRules.Edit.Action.ADDED,
					ClassificationRules.Edit.Action.REPLACED, ClassificationRules.Edit.Action.REMOVED,
					ClassificationRules.Edit.Action.REPLACED_ALL);
		assertThat(edits.get(4).source()).isEqualTo("fleet");
		assertThat(edits.get(0).describe())
			.isEqualTo("added rules[0]: provider=openai status=429 -> QUOTA " + "(1 in force, by operator)");
		assertThat(rules.rules()).containsExactly(first, second);
		List<ClassificationRule> before = rules.rules();
		assertThatRefused(() -> rules.remove(2, "operator"), "index must be between 0 and 1, was 2");
		assertThatRefused(() -> rules.add(5, first, "operator"), "index must be between 0 and 2, was 5");
		assertThatRefused(
				() -> rules.add(null, ClassificationRule.parse("opneai", "429", null, null, "QUOTA", null), "operator"),
				"provider must be a provider id with a classifier");
		assertThat(rules.rules()).isSameAs(before);
		assertThat(edits).hasSize(5);
	}

	@Test
	void concurrentEditsNeverShowAClassificationAHalfEditedList() throws Exception {
		ClassificationRules rules = new ClassificationRules();
		ClassificationRule teapot = ClassificationRule.parse(null, "418", "teapot_error", null, "AVAILABILITY", null);
		ClassificationRule other = ClassificationRule.parse(null, "503", null, null, "THROTTLED", null);
		ProviderErrorClassifier classifier = new RuleClassifier(rules, "openai",
				BuiltInClassifiers.forProvider("openai"), CLOCK, UnclassifiedListener.NONE);
		ProviderResponse answer = ProviderResponse.of(418, Map.of(), TEAPOT);
		ExecutorService pool = Executors.newFixedThreadPool(4);
		try {
			List<Future<List<String>>> readers = new ArrayList<>();
			for (int t = 0; t < 2; t++) {
				readers.add(pool.submit(() -> {
					List<String> seen = new ArrayList<>();
					for (int i = 0; i < 2_000; i++) {
						seen.add(classifier.classify(answer).rule());
					}
					return seen;
				}));
			}
			Future<?> editor = pool.submit(() -> {
				for (int i = 0; i < 500; i++) {
					rules.add(0, other, "test");
					rules.add(null, teapot, "test");
					rules.remove(rules.rules().size() - 1, "test");
					rules.remove(0, "test");
				}
			});
			editor.get(5, TimeUnit.MINUTES);
			for (Future<List<String>> reader : readers) {
				// The teapot rule is at index 1 while it is in force; otherwise the
				// table's
				// default decides. Never an index that no list ever held it at.
				assertThat(reader.get(5, TimeUnit.MINUTES)).isNotEmpty()
					.allMatch((rule) -> rule.equals("rules[1]") || rule.equals(Verdict.DEFAULT));
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(rules.rules()).isEmpty();
	}

	private static void assertThatRefused(Runnable edit, String message) {
		org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
			.isThrownBy(edit::run)
			.withMessageContaining(message);
	}

	private ProviderErrorClassifier classifier(ClassificationRules rules, String provider) {
		ClassifierSettings settings = ClassifierSettings.defaults().withClock(CLOCK).withListener(this.listener);
		return new RuleClassifier(rules, provider, BuiltInClassifiers.forProvider(provider, settings), CLOCK,
				this.listener);
	}

}
