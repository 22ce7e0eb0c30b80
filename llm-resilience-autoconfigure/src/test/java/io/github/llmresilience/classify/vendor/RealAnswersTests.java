package io.github.llmresilience.classify.vendor;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.github.llmresilience.classify.ClassifierSettings;
import io.github.llmresilience.classify.Fixtures;
import io.github.llmresilience.classify.Verdict;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The corpus of real provider answers of issue 23, one test each: every answer quoted
 * from a vendor's documentation, an SDK's test fixture or a public issue, with its
 * {@code source} and a {@code note} on why its outcome is right.
 * {@code real-answers-held-out.json} was gathered before the table was changed and the
 * table was not written from it; {@code real-answers.json} is the rest.
 */
class RealAnswersTests {

	static final String HELD_OUT = "/fixtures/real-answers-held-out.json";

	static final String CORPUS = "/fixtures/real-answers.json";

	/** The clock the corpus's wait hints are measured from. */
	private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-03-24T00:00:00Z"), ZoneOffset.UTC);

	static Stream<Fixtures.Case> heldOut() {
		return Fixtures.load(HELD_OUT).stream();
	}

	static Stream<Fixtures.Case> corpus() {
		return Fixtures.load(CORPUS).stream();
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("heldOut")
	void eachHeldOutAnswerGetsItsVerdict(Fixtures.Case fixture) {
		check(fixture, raw(HELD_OUT).get(fixture.id()));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("corpus")
	void eachAnswerGetsItsVerdict(Fixtures.Case fixture) {
		check(fixture, raw(CORPUS).get(fixture.id()));
	}

	@Test
	void everyAnswerNamesItsSourceAndWhyItsOutcomeIsRight() {
		Map<String, JsonNode> all = new HashMap<>(raw(HELD_OUT));
		all.putAll(raw(CORPUS));
		for (JsonNode node : all.values()) {
			assertThat(node.path("source").asString()).as(node.path("id").asString()).startsWith("https://");
			assertThat(node.path("note").asString()).as(node.path("id").asString()).isNotBlank();
		}
	}

	private static void check(Fixtures.Case fixture, JsonNode raw) {
		Verdict verdict = BuiltInClassifiers
			.forProvider(provider(fixture), ClassifierSettings.defaults().withClock(CLOCK))
			.classify(fixture.response());
		assertThat(fixture.acceptable()).as("%s: %s (%s)", fixture.id(), verdict, verdict.rule())
			.contains(verdict.outcome());
		if (raw.has("providerWide")) {
			assertThat(verdict.providerWide()).as("%s provider-wide", fixture.id())
				.isEqualTo(raw.path("providerWide").asBoolean());
		}
		if (fixture.retryAfterMs() != null) {
			assertThat(verdict.waitHint()).as("%s wait hint", fixture.id()).isPresent();
			assertThat(verdict.waitHint().get().toMillis()).as("%s wait hint", fixture.id())
				.isCloseTo(fixture.retryAfterMs(), Offset.offset(1000L));
		}
	}

	/** A profile the table does not have is read as the OpenAI-shaped server it is. */
	private static String provider(Fixtures.Case fixture) {
		return BuiltInClassifiers.PROVIDER_IDS.contains(fixture.provider()) ? fixture.provider() : "openai-compatible";
	}

	private static Map<String, JsonNode> raw(String resource) {
		try (InputStream in = RealAnswersTests.class.getResourceAsStream(resource)) {
			Map<String, JsonNode> byId = new HashMap<>();
			for (JsonNode node : JsonMapper.builder().build().readTree(in)) {
				byId.put(node.path("id").asString(), node);
			}
			return byId;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static List<String> files() {
		return List.of(HELD_OUT, CORPUS);
	}

}
