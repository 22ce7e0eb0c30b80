package io.github.llmresilience.classify.vendor;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.llmresilience.classify.ClassifierSettings;
import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.ProviderErrorClassifier;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.Verdict;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class WaitHintsTests {

	private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-08-31T23:00:00Z"), ZoneOffset.UTC);

	@Test
	void goDurationsAsOpenAiAndGroqSendThem() {
		assertThat(WaitHints.goDuration("6m0s")).isEqualTo(Duration.ofMinutes(6));
		assertThat(WaitHints.goDuration("2m59.56s")).isEqualTo(Duration.ofMillis(179_560));
		assertThat(WaitHints.goDuration("20ms")).isEqualTo(Duration.ofMillis(20));
		assertThat(WaitHints.goDuration("1h2m3s")).isEqualTo(Duration.ofSeconds(3723));
		assertThat(WaitHints.goDuration("7.66s")).isEqualTo(Duration.ofMillis(7660));
		assertThat(WaitHints.goDuration("500us")).isEqualTo(Duration.ofNanos(500_000));
	}

	@Test
	void malformedGoDurationsAreIgnored() {
		assertThat(WaitHints.goDuration("")).isNull();
		assertThat(WaitHints.goDuration("s")).isNull();
		assertThat(WaitHints.goDuration("5")).isNull();
		assertThat(WaitHints.goDuration("5 parsecs")).isNull();
		assertThat(WaitHints.goDuration("1..2s")).isNull();
		assertThat(WaitHints.goDuration(null)).isNull();
	}

	@Test
	void absurdlyLongWaitsAreCutToTheMaximum() {
		assertThat(WaitHints.goDuration("99999999999h")).isEqualTo(WaitHints.MAX);
		assertThat(WaitHints.retryAfter("1e308", Instant.EPOCH)).isNull();
		assertThat(WaitHints.retryAfter("99999999999999999999", Instant.EPOCH)).isEqualTo(WaitHints.MAX);
	}

	@Test
	void retryAfterSecondsIntegerAndDecimal() {
		assertThat(WaitHints.retryAfter("37", Instant.EPOCH)).isEqualTo(Duration.ofSeconds(37));
		assertThat(WaitHints.retryAfter("1.5", Instant.EPOCH)).isEqualTo(Duration.ofMillis(1500));
		assertThat(WaitHints.retryAfter(" 2 ", Instant.EPOCH)).isEqualTo(Duration.ofSeconds(2));
	}

	@Test
	void negativeRetryAfterMeansNowNeverThePast() {
		assertThat(WaitHints.retryAfter("-5", Instant.EPOCH)).isEqualTo(Duration.ZERO);
	}

	@Test
	void retryAfterHttpDateIsRelativeToTheDateHeader() {
		Verdict verdict = classify(429,
				headers("date", "Fri, 29 Sep 2023 16:26:37 GMT", "retry-after", "Fri, 29 Sep 2023 16:26:57 GMT"));
		assertThat(verdict.waitHint()).contains(Duration.ofSeconds(20));
	}

	@Test
	void retryAfterHttpDateWithoutDateHeaderIsRelativeToTheClock() {
		Verdict verdict = classify(429, headers("retry-after", "Mon, 31 Aug 2026 23:00:30 GMT"));
		assertThat(verdict.waitHint()).contains(Duration.ofSeconds(30));
	}

	@Test
	void retryAfterMsWinsOverRetryAfter() {
		Verdict verdict = classify(429, headers("retry-after", "37", "retry-after-ms", "36500"));
		assertThat(verdict.waitHint()).contains(Duration.ofMillis(36_500));
	}

	@Test
	void garbageHeaderFallsThroughToTheNextSource() {
		Verdict verdict = classify(429, headers("retry-after", "soon, I promise", "x-ratelimit-reset-tokens", "3s"));
		assertThat(verdict.waitHint()).contains(Duration.ofSeconds(3));
	}

	@Test
	void resetDurationOfTheExhaustedDimensionWins() {
		Verdict verdict = classify(429, headers("x-ratelimit-reset-requests", "1s", "x-ratelimit-remaining-requests",
				"0", "x-ratelimit-reset-tokens", "6m0s", "x-ratelimit-remaining-tokens", "12000"));
		assertThat(verdict.waitHint()).contains(Duration.ofSeconds(1));
	}

	@Test
	void withNoDimensionKnownExhaustedTheLongestResetWins() {
		Verdict verdict = classify(429, headers("x-ratelimit-reset-requests", "1s", "x-ratelimit-reset-tokens", "6s"));
		assertThat(verdict.waitHint()).contains(Duration.ofSeconds(6));
	}

	@Test
	void headerNamesAreCaseInsensitive() {
		Verdict verdict = classify(429, headers("Retry-After", "4"));
		assertThat(verdict.waitHint()).contains(Duration.ofSeconds(4));
	}

	@Test
	void bodyTextHintsOnlyWhenNoHeaderSaysAnything() {
		String body = "{\"error\":{\"code\":\"rate_limit_exceeded\",\"message\":\"Please try again in 3.89s.\"}}";
		assertThat(classify(429, Map.of(), body).waitHint()).contains(Duration.ofMillis(3890));
		assertThat(classify(429, headers("retry-after", "1"), body).waitHint()).contains(Duration.ofSeconds(1));
	}

	@Test
	void spokenDurations() {
		assertThat(WaitHints.fromText("Please retry after 37 seconds.", CLOCK)).isEqualTo(Duration.ofSeconds(37));
		assertThat(WaitHints.fromText("Please try again in 9m38.016s. Need more", CLOCK))
			.isEqualTo(Duration.ofMillis(578_016));
		assertThat(WaitHints.fromText("Please retry in 20.04466179s.", CLOCK))
			.isEqualTo(Duration.ofNanos(20_044_661_790L));
		assertThat(WaitHints.fromText("try again in 250ms", CLOCK)).isEqualTo(Duration.ofMillis(250));
		assertThat(WaitHints.fromText("please wait 2 minutes", CLOCK)).isEqualTo(Duration.ofMinutes(2));
		assertThat(WaitHints.fromText("please wait before trying again", CLOCK)).isNull();
		assertThat(WaitHints.fromText("try again in a moment", CLOCK)).isNull();
	}

	@Test
	void anthropicSpendLimitNamesItsResetInstant() {
		assertThat(WaitHints.fromText("You will regain access on 2026-09-01 at 00:00 UTC.", CLOCK))
			.isEqualTo(Duration.ofHours(1));
		assertThat(WaitHints.fromText("You will regain access on 2020-01-01 at 00:00 UTC.", CLOCK))
			.isEqualTo(Duration.ZERO);
		assertThat(WaitHints.fromText("You will regain access on 2026-99-01 at 00:00 UTC.", CLOCK)).isNull();
	}

	@Test
	void throttleResetBeyondTheQuotaThresholdIsAQuotaButABareRetryAfterIsNot() {
		ProviderErrorClassifier classifier = BuiltInClassifiers.forProvider("azure-openai",
				ClassifierSettings.defaults().withClock(CLOCK).withQuotaThreshold(Duration.ofMinutes(10)));
		assertThat(classifier
			.classify(ProviderResponse.of(429,
					headers("x-ratelimit-remaining-tokens", "0", "x-ratelimit-reset-tokens", "601s"), ""))
			.outcome()).isEqualTo(Outcome.QUOTA);
		assertThat(classifier
			.classify(ProviderResponse.of(429,
					headers("x-ratelimit-remaining-tokens", "0", "x-ratelimit-reset-tokens", "599s"), ""))
			.outcome()).isEqualTo(Outcome.THROTTLED);
		// A bare retry-after says when to try again, not when a limit resets.
		Verdict bare = classifier.classify(ProviderResponse.of(429, headers("retry-after", "601"), ""));
		assertThat(bare.outcome()).isEqualTo(Outcome.THROTTLED);
		assertThat(bare.waitHint()).hasValue(Duration.ofSeconds(601));
	}

	private static Verdict classify(int status, Map<String, List<String>> headers) {
		return classify(status, headers, "");
	}

	private static Verdict classify(int status, Map<String, List<String>> headers, String body) {
		return BuiltInClassifiers.forProvider("openai", ClassifierSettings.defaults().withClock(CLOCK))
			.classify(ProviderResponse.of(status, headers, body));
	}

	private static Map<String, List<String>> headers(String... namesAndValues) {
		Map<String, List<String>> headers = new LinkedHashMap<>();
		for (int i = 0; i < namesAndValues.length; i += 2) {
			headers.put(namesAndValues[i], List.of(namesAndValues[i + 1]));
		}
		return headers;
	}

}
