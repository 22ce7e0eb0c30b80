package io.github.llmresilience.classify.vendor;

import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.github.llmresilience.classify.ClassifierSettings;
import io.github.llmresilience.classify.Fixtures;
import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.Verdict;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The three families of real answers the tables used to misread, from
 * {@code fixtures/misread-families.json} (each case quotes a vendor's documentation or a
 * public issue report, with its source): a rate limit whose own numbers show the request
 * can never fit is the caller's ({@code REQUEST}); a usage limit sent as
 * {@code 400 invalid_request_error} with a date is a {@code QUOTA} parked until that
 * date; Azure's shared capacity at peak load is the provider's ({@code AVAILABILITY},
 * provider wide), not the account's rate limit.
 */
class MisreadFamiliesTests {

	static final String RESOURCE = "/fixtures/misread-families.json";

	/** The clock the fixtures' wait hints are measured from. */
	private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-03-24T00:00:00Z"), ZoneOffset.UTC);

	static Stream<Fixtures.Case> cases() {
		return Fixtures.load(RESOURCE).stream();
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("cases")
	void eachRealAnswerIsReadAsItsFamilySays(Fixtures.Case fixture) {
		Verdict verdict = BuiltInClassifiers
			.forProvider(fixture.provider(), ClassifierSettings.defaults().withClock(CLOCK))
			.classify(fixture.response());

		assertThat(verdict.outcome()).as("%s outcome", fixture.id()).isEqualTo(fixture.expected());
		assertThat(verdict.rule()).as("decided by the provider's table").isEqualTo(Verdict.BUILT_IN);
		assertThat(verdict.providerWide()).as("%s provider-wide", fixture.id())
			.isEqualTo(raw(fixture.id()).path("providerWide").asBoolean());
		if (fixture.retryAfterMs() != null) {
			assertThat(verdict.waitHint()).as("%s wait hint", fixture.id()).isPresent();
			assertThat(verdict.waitHint().get().toMillis()).isCloseTo(fixture.retryAfterMs(), Offset.offset(1000L));
		}
		else if (fixture.expected() == Outcome.REQUEST) {
			assertThat(verdict.waitHint()).as("a request that can never fit has nothing to wait for").isEmpty();
		}
	}

	@Test
	void everyFamilyHasARealAnswerWithItsSource() {
		List<Fixtures.Case> cases = Fixtures.load(RESOURCE);
		assertThat(cases).extracting(Fixtures.Case::expected)
			.contains(Outcome.REQUEST, Outcome.QUOTA, Outcome.AVAILABILITY);
		for (Fixtures.Case fixture : cases) {
			assertThat(raw(fixture.id()).path("source").asString()).as(fixture.id()).startsWith("https://");
		}
	}

	@Test
	void aUsageLimitParksTheAccountUntilTheDateTheMessageNames() {
		Fixtures.Case fixture = byId("anthropic-400-usage-limits-regain-access");
		Verdict verdict = BuiltInClassifiers.forProvider("anthropic", ClassifierSettings.defaults().withClock(CLOCK))
			.classify(fixture.response());

		assertThat(verdict.outcome()).isEqualTo(Outcome.QUOTA);
		assertThat(CLOCK.instant().plus(verdict.waitHint().orElseThrow()))
			.isEqualTo(Instant.parse("2026-04-01T00:00:00Z"));
	}

	@Test
	void aRequestAboveTheLimitIsReadFromTheNumbersWhateverTheWordsAround() {
		// The same numbers in OpenAI's wording, where "limit" first appears in "Rate
		// limit
		// reached": the number is the one after the word that has one.
		String body = "{\"error\":{\"message\":\"Rate limit reached for gpt-4o in organization org-x on tokens per "
				+ "min (TPM): Limit 30000, Used 0, Requested 45123. Please try again in 1m30s.\",\"type\":\"tokens\","
				+ "\"param\":null,\"code\":\"rate_limit_exceeded\"}}";
		Verdict verdict = BuiltInClassifiers.forProvider("openai")
			.classify(ProviderResponse.of(429, Map.of("retry-after", List.of("90")), body));

		assertThat(verdict.outcome()).isEqualTo(Outcome.REQUEST);
		assertThat(verdict.waitHint()).isEmpty();
	}

	@Test
	void overloadSpeaksForTheWholeProviderOnlyWhenTheAnswerSaysSo() {
		ClassifierSettings settings = ClassifierSettings.defaults().withClock(CLOCK);
		Map<String, Boolean> expected = Map.of("anthropic-529-overloaded", true,
				"anthropic-sse-error-overloaded-midstream", true, "openai-429-server-overloaded", true,
				"gemini-503-model-overloaded", false, "openai-500-server-error", false,
				"anthropic-429-itpm-with-headers", false);
		for (Fixtures.Case fixture : Fixtures.vendorErrors()) {
			Boolean wide = expected.get(fixture.id());
			if (wide != null) {
				Verdict verdict = BuiltInClassifiers.forProvider(fixture.provider(), settings)
					.classify(fixture.response());
				assertThat(verdict.providerWide()).as(fixture.id()).isEqualTo(wide);
			}
		}
		Verdict noBody = BuiltInClassifiers.forProvider("anthropic", settings)
			.classify(ProviderResponse.of(529, Map.of(), ""));
		assertThat(noBody.outcome()).isEqualTo(Outcome.AVAILABILITY);
		assertThat(noBody.providerWide()).isTrue();
		assertThat(BuiltInClassifiers.forProvider("openai", settings)
			.classify(ProviderResponse.of(503, Map.of(), ""))
			.providerWide()).as("a bare 503 says nothing of the fleet").isFalse();
	}

	private static Fixtures.Case byId(String id) {
		return Fixtures.load(RESOURCE).stream().filter((each) -> each.id().equals(id)).findFirst().orElseThrow();
	}

	private static JsonNode raw(String id) {
		try (InputStream in = MisreadFamiliesTests.class.getResourceAsStream(RESOURCE)) {
			for (JsonNode node : JsonMapper.builder().build().readTree(in)) {
				if (node.path("id").asString().equals(id)) {
					return node;
				}
			}
			throw new IllegalStateException("No fixture " + id);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
