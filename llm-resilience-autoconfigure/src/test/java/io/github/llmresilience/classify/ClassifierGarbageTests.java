package io.github.llmresilience.classify;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.llmresilience.classify.vendor.BuiltInClassifiers;
import io.github.llmresilience.classify.vendor.WaitHints;
import io.github.llmresilience.test.SeededTries;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Garbage from a provider never throws out of a classifier and never yields a negative or
 * unbounded wait: random statuses, headers and bodies, each property 10,000 seeded tries.
 */
class ClassifierGarbageTests {

	private static final int TRIES = 10_000;

	private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-29T12:00:00Z"), ZoneOffset.UTC);

	private static final List<String> HEADER_NAMES = List.of("retry-after", "Retry-After", "retry-after-ms",
			"x-ratelimit-reset-requests", "x-ratelimit-reset-tokens", "x-ratelimit-remaining-tokens",
			"x-ratelimit-remaining-requests", "anthropic-ratelimit-tokens-reset",
			"anthropic-ratelimit-tokens-remaining", "anthropic-ratelimit-requests-reset", "date", "content-type",
			"x-amzn-errortype", "x-should-retry");

	private static final List<String> BODY_FRAGMENTS = List.of("{", "}", "[", "]", ",", ":", "\"error\"", "\"type\"",
			"\"code\"", "\"message\"", "\"status\"", "\"details\"", "\"@type\"",
			"\"type.googleapis.com/google.rpc.RetryInfo\"", "\"retryDelay\"", "\"26s\"", "\"RESOURCE_EXHAUSTED\"",
			"\"rate_limit_exceeded\"", "\"insufficient_quota\"", "\"overloaded_error\"", "\"content_filter\"",
			"\"finish_reason\"", "\"candidates\"", "\"finishReason\"", "\"SAFETY\"", "\"stop_reason\"", "\"refusal\"",
			"null", "true", "429", "-1", "1e999", "\"\\u12\"", "\"\\", "data: ", "event: error\n", "\n\n",
			"try again in ", "9m38.016s", "retry after 99999999999999999999 seconds", "limit: 0",
			"Limit 30000, Requested 99999", "regain access on 2026-13-45 at 99:99 UTC", "<html>", "\u0000", "\uFFFD",
			"\uD800");

	private static final List<String> VALUE_FRAGMENTS = List.of("0", "-1", "1.5", "NaN", "Infinity", "1e308",
			"99999999999999999999999", "6m0s", "2m59.56s", "20ms", "1h1h1h", "mmmm", "1.2.3s", "-5s",
			"Fri, 29 Sep 2023 16:26:57 GMT", "Mon, 99 Foo 2023 99:99:99 GMT", "2026-02-25T20:02:37Z",
			"0000-00-00T00:00:00Z", "ThrottlingException:http://x", "#", ":", "text/event-stream", "application/json",
			"", " ", "\u0000", "\uD83D\uDE00");

	@Test
	void randomAnswersNeverThrowAndHintsStayInRange() {
		SeededTries.run(TRIES, (random) -> {
			String provider = provider(random);
			int status = status(random);
			Map<String, List<String>> headers = headers(random);
			String body = body(random);
			AtomicInteger reported = new AtomicInteger();
			ProviderErrorClassifier classifier = BuiltInClassifiers.forProvider(provider,
					ClassifierSettings.defaults()
						.withClock(CLOCK)
						.withListener((v, s, type) -> reported.incrementAndGet()));
			Verdict verdict = classifier.classify(ProviderResponse.of(status, headers, body));
			assertSane(verdict);
			if (status >= 200 && status < 300 && !body.contains("\"") && !body.contains("data:")
					&& !body.contains("event:")) {
				assertThat(verdict.outcome()).isEqualTo(Outcome.SUCCESS);
			}
		});
	}

	@Test
	void randomStreamEventsNeverThrow() {
		SeededTries.run(TRIES, (random) -> {
			Verdict verdict = BuiltInClassifiers
				.forProvider(provider(random), ClassifierSettings.defaults().withClock(CLOCK))
				.classify(ProviderResponse.streamEvent(eventName(random), body(random)));
			assertSane(verdict);
		});
	}

	@Test
	void randomBytesNeverThrow() {
		SeededTries.run(TRIES, (random) -> {
			byte[] body = new byte[random.nextInt(601)];
			random.nextBytes(body);
			Verdict verdict = BuiltInClassifiers
				.forProvider(provider(random), ClassifierSettings.defaults().withClock(CLOCK))
				.classify(
						ProviderResponse.of(status(random), Map.of("content-type", List.of("application/json")), body));
			assertSane(verdict);
		});
	}

	@Test
	void truncatedFixtureBodiesNeverThrow() {
		List<Fixtures.Case> cases = new ArrayList<>(Fixtures.vendorErrors());
		cases.addAll(Fixtures.extraVendorErrors());
		cases.removeIf(Fixtures.Case::isEventStreamMessage);
		SeededTries.run(TRIES, (random) -> {
			Fixtures.Case fixture = cases.get(random.nextInt(cases.size()));
			byte[] bytes = fixture.bodyText().getBytes(StandardCharsets.UTF_8);
			byte[] prefix = Arrays.copyOf(bytes, (int) (bytes.length * random.nextDouble()));
			ProviderResponse response = ProviderResponse.of(fixture.status(), fixture.headers(), prefix);
			Verdict verdict = BuiltInClassifiers
				.forProvider(fixture.provider(), ClassifierSettings.defaults().withClock(CLOCK))
				.classify(response);
			assertSane(verdict);
			// A truncated error body still never makes a failure look like a success.
			if (response.status() >= 400) {
				assertThat(verdict.outcome()).isNotEqualTo(Outcome.SUCCESS);
			}
		});
	}

	private static void assertSane(Verdict verdict) {
		assertThat(verdict).isNotNull();
		assertThat(verdict.outcome()).isNotNull();
		verdict.waitHint().ifPresent((hint) -> {
			assertThat(hint.isNegative()).as("negative hint %s", hint).isFalse();
			assertThat(hint).isLessThanOrEqualTo(WaitHints.MAX);
		});
		verdict.errorType()
			.ifPresent(
					(type) -> assertThat(type).hasSizeLessThanOrEqualTo(64).doesNotContain("\"", "\n", " ", "\u0000"));
	}

	private static <T> T any(Random random, List<T> values) {
		return values.get(random.nextInt(values.size()));
	}

	private static String provider(Random random) {
		return any(random, List.copyOf(BuiltInClassifiers.PROVIDER_IDS));
	}

	private static final List<Integer> COMMON_STATUSES = List.of(200, 400, 401, 402, 403, 404, 408, 409, 413, 422, 429,
			498, 500, 502, 503, 504, 529);

	private static int status(Random random) {
		int pick = random.nextInt(8);
		if (pick < 6) {
			return any(random, COMMON_STATUSES);
		}
		return (pick == 6) ? random.nextInt(2001) - 1000 : random.nextInt();
	}

	private static String eventName(Random random) {
		return switch (random.nextInt(3)) {
			case 0 -> any(random, List.of("error", "message", "response.failed", "message_delta", "throttlingException",
					"modelStreamErrorException", "internalServerException", "Exception", ""));
			case 1 -> text(random, 40);
			default -> null;
		};
	}

	private static Map<String, List<String>> headers(Random random) {
		Map<String, List<String>> headers = new LinkedHashMap<>();
		int size = random.nextInt(9);
		for (int i = 0; i < size; i++) {
			String name = random.nextBoolean() ? any(random, HEADER_NAMES) : text(random, 1 + random.nextInt(30));
			List<String> values = new ArrayList<>();
			for (int v = 1 + random.nextInt(2); v > 0; v--) {
				values.add(switch (random.nextInt(3)) {
					case 0 -> any(random, VALUE_FRAGMENTS);
					case 1 -> text(random, 80);
					default -> digits(random, 400);
				});
			}
			headers.put(name, values);
		}
		return headers;
	}

	private static String body(Random random) {
		int pick = random.nextInt(10);
		if (pick < 6) {
			StringBuilder body = new StringBuilder();
			for (int parts = random.nextInt(61); parts > 0; parts--) {
				body.append(random.nextBoolean() ? any(random, BODY_FRAGMENTS) : text(random, 12));
			}
			return body.toString();
		}
		if (pick < 8) {
			return text(random, 300);
		}
		if (pick == 8) {
			int depth = 1 + random.nextInt(5_000);
			return "{\"error\":".repeat(depth) + "[".repeat(depth);
		}
		return "";
	}

	/** Any characters, surrogates and controls included, up to the given length. */
	private static String text(Random random, int maxLength) {
		char[] chars = new char[random.nextInt(maxLength + 1)];
		for (int i = 0; i < chars.length; i++) {
			chars[i] = random.nextInt(4) == 0 ? (char) random.nextInt(Character.MAX_VALUE + 1)
					: (char) (32 + random.nextInt(95));
		}
		return new String(chars);
	}

	private static String digits(Random random, int maxLength) {
		char[] chars = new char[random.nextInt(maxLength + 1)];
		for (int i = 0; i < chars.length; i++) {
			chars[i] = (char) ('0' + random.nextInt(10));
		}
		return new String(chars);
	}

}
