package io.github.llmresilience.classify;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Garbage from a provider never throws out of a classifier and never yields a negative or
 * unbounded wait: random statuses, headers and bodies, each property at least 10,000
 * tries.
 */
class ClassifierGarbageProperties {

	private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-29T12:00:00Z"), ZoneOffset.UTC);

	private static final List<String> HEADER_NAMES = List.of("retry-after", "Retry-After", "retry-after-ms",
			"x-ratelimit-reset-requests", "x-ratelimit-reset-tokens", "x-ratelimit-remaining-tokens",
			"x-ratelimit-remaining-requests", "anthropic-ratelimit-tokens-reset",
			"anthropic-ratelimit-tokens-remaining", "anthropic-ratelimit-requests-reset", "date", "content-type",
			"x-amzn-errortype", "x-should-retry");

	private static final List<String> BODY_FRAGMENTS = List.of("{", "}", "[", "]", ",", ":", "\"error\"",
			"\"type\"", "\"code\"", "\"message\"", "\"status\"", "\"details\"", "\"@type\"",
			"\"type.googleapis.com/google.rpc.RetryInfo\"", "\"retryDelay\"", "\"26s\"", "\"RESOURCE_EXHAUSTED\"",
			"\"rate_limit_exceeded\"", "\"insufficient_quota\"", "\"overloaded_error\"", "\"content_filter\"",
			"\"finish_reason\"", "\"candidates\"", "\"finishReason\"", "\"SAFETY\"", "\"stop_reason\"",
			"\"refusal\"", "null", "true", "429", "-1", "1e999", "\"\\u12\"", "\"\\", "data: ", "event: error\n",
			"\n\n", "try again in ", "9m38.016s", "retry after 99999999999999999999 seconds", "limit: 0",
			"Limit 30000, Requested 99999", "regain access on 2026-13-45 at 99:99 UTC", "<html>", "\u0000",
			"\uFFFD", "\uD800");

	private static final List<String> VALUE_FRAGMENTS = List.of("0", "-1", "1.5", "NaN", "Infinity", "1e308",
			"99999999999999999999999", "6m0s", "2m59.56s", "20ms", "1h1h1h", "mmmm", "1.2.3s", "-5s",
			"Fri, 29 Sep 2023 16:26:57 GMT", "Mon, 99 Foo 2023 99:99:99 GMT", "2026-02-25T20:02:37Z",
			"0000-00-00T00:00:00Z", "ThrottlingException:http://x", "#", ":", "text/event-stream",
			"application/json", "", " ", "\u0000", "\uD83D\uDE00");

	@Property(tries = 10_000)
	void randomAnswersNeverThrowAndHintsStayInRange(@ForAll("vendors") String vendor, @ForAll("statuses") int status,
			@ForAll("headers") Map<String, List<String>> headers, @ForAll("bodies") String body) {
		AtomicInteger reported = new AtomicInteger();
		ProviderErrorClassifier classifier = BuiltInClassifiers.forVendor(vendor, ClassifierSettings.defaults()
			.withClock(CLOCK)
			.withListener((v, s, type) -> reported.incrementAndGet()));
		Verdict verdict = classifier.classify(ProviderResponse.of(status, headers, body));
		assertSane(verdict);
		if (status >= 200 && status < 300 && !body.contains("\"") && !body.contains("data:")
				&& !body.contains("event:")) {
			assertThat(verdict.outcome()).isEqualTo(Outcome.SUCCESS);
		}
	}

	@Property(tries = 10_000)
	void randomStreamEventsNeverThrow(@ForAll("vendors") String vendor, @ForAll("eventNames") String event,
			@ForAll("bodies") String data) {
		Verdict verdict = BuiltInClassifiers.forVendor(vendor, ClassifierSettings.defaults().withClock(CLOCK))
			.classify(ProviderResponse.streamEvent(event, data));
		assertSane(verdict);
	}

	@Property(tries = 10_000)
	void randomBytesNeverThrow(@ForAll("vendors") String vendor, @ForAll("statuses") int status,
			@ForAll("bytes") byte[] body) {
		Verdict verdict = BuiltInClassifiers.forVendor(vendor, ClassifierSettings.defaults().withClock(CLOCK))
			.classify(ProviderResponse.of(status, Map.of("content-type", List.of("application/json")), body));
		assertSane(verdict);
	}

	@Property(tries = 10_000)
	void truncatedFixtureBodiesNeverThrow(@ForAll("truncatedFixtures") ProviderResponseCase fixture) {
		Verdict verdict = BuiltInClassifiers.forVendor(fixture.vendor(),
				ClassifierSettings.defaults().withClock(CLOCK))
			.classify(fixture.response());
		assertSane(verdict);
		// A truncated error body still never makes a failure look like a success.
		if (fixture.response().status() >= 400) {
			assertThat(verdict.outcome()).isNotEqualTo(Outcome.SUCCESS);
		}
	}

	private static void assertSane(Verdict verdict) {
		assertThat(verdict).isNotNull();
		assertThat(verdict.outcome()).isNotNull();
		verdict.waitHint().ifPresent((hint) -> {
			assertThat(hint.isNegative()).as("negative hint %s", hint).isFalse();
			assertThat(hint).isLessThanOrEqualTo(WaitHints.MAX);
		});
		verdict.errorType().ifPresent((type) -> assertThat(type).hasSizeLessThanOrEqualTo(64)
			.doesNotContain("\"", "\n", " ", "\u0000"));
	}

	record ProviderResponseCase(String vendor, ProviderResponse response) {
	}

	@Provide
	Arbitrary<String> vendors() {
		return Arbitraries.of(BuiltInClassifiers.VENDOR_IDS);
	}

	@Provide
	Arbitrary<Integer> statuses() {
		return Arbitraries.frequencyOf(
				net.jqwik.api.Tuple.of(6,
						Arbitraries.of(200, 400, 401, 402, 403, 404, 408, 409, 413, 422, 429, 498, 500, 502, 503, 504,
								529)),
				net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(-1000, 1000)),
				net.jqwik.api.Tuple.of(1, Arbitraries.integers()));
	}

	@Provide
	Arbitrary<String> eventNames() {
		return Arbitraries.oneOf(Arbitraries.of("error", "message", "response.failed", "message_delta",
				"throttlingException", "modelStreamErrorException", "internalServerException", "Exception", ""),
				Arbitraries.strings().ofMaxLength(40), Arbitraries.just(null));
	}

	@Provide
	Arbitrary<Map<String, List<String>>> headers() {
		Arbitrary<String> names = Arbitraries.oneOf(Arbitraries.of(HEADER_NAMES),
				Arbitraries.strings().ofMinLength(1).ofMaxLength(30));
		Arbitrary<String> values = Arbitraries.oneOf(Arbitraries.of(VALUE_FRAGMENTS),
				Arbitraries.strings().ofMaxLength(80), Arbitraries.strings().numeric().ofMaxLength(400));
		return Arbitraries.maps(names, values.list().ofMinSize(1).ofMaxSize(2)).ofMaxSize(8)
			.map(LinkedHashMap::new);
	}

	@Provide
	Arbitrary<String> bodies() {
		Arbitrary<String> assembled = Arbitraries.oneOf(Arbitraries.of(BODY_FRAGMENTS),
				Arbitraries.strings().ofMaxLength(12))
			.list()
			.ofMaxSize(60)
			.map((parts) -> String.join("", parts));
		Arbitrary<String> nested = Arbitraries.integers().between(1, 5_000)
			.map((depth) -> "{\"error\":".repeat(depth) + "[".repeat(depth));
		return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(6, assembled),
				net.jqwik.api.Tuple.of(2, Arbitraries.strings().ofMaxLength(300)),
				net.jqwik.api.Tuple.of(1, nested), net.jqwik.api.Tuple.of(1, Arbitraries.just("")));
	}

	@Provide
	Arbitrary<byte[]> bytes() {
		return Arbitraries.bytes().array(byte[].class).ofMaxSize(600);
	}

	@Provide
	Arbitrary<ProviderResponseCase> truncatedFixtures() {
		List<Fixtures.Case> cases = new ArrayList<>(Fixtures.vendorErrors());
		cases.addAll(Fixtures.extraVendorErrors());
		cases.removeIf(Fixtures.Case::isEventStreamMessage);
		return Combinators.combine(Arbitraries.of(cases), Arbitraries.doubles().between(0, 1))
			.as((fixture, share) -> {
				byte[] bytes = fixture.bodyText().getBytes(StandardCharsets.UTF_8);
				int cut = (int) (bytes.length * share);
				byte[] prefix = java.util.Arrays.copyOf(bytes, cut);
				return new ProviderResponseCase(fixture.vendor(),
						ProviderResponse.of(fixture.status(), fixture.headers(), prefix));
			});
	}


}
