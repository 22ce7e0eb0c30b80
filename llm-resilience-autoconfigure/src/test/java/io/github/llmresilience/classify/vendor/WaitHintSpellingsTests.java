package io.github.llmresilience.classify.vendor;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import io.github.llmresilience.classify.ProviderResponse;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every spelling of a wait issue 23 lists, and none of them ever negative or unbounded.
 */
class WaitHintSpellingsTests {

	private static final Instant NOW = Instant.parse("2026-03-24T12:00:00Z");

	private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

	private static Duration headers(String name, String value) {
		return WaitHints.fromHeaders(ProviderResponse.of(429, Map.of(name, List.of(value)), ""), CLOCK);
	}

	@Test
	void millisecondHeaders() {
		assertThat(headers("retry-after-ms", "1500")).isEqualTo(Duration.ofMillis(1500));
		assertThat(headers("x-ms-retry-after-ms", "250")).isEqualTo(Duration.ofMillis(250));
	}

	@Test
	void resetHeadersInEverySpelling() {
		assertThat(headers("x-ratelimit-reset-tokens", "6m0s")).isEqualTo(Duration.ofMinutes(6));
		// Cerebras: bare seconds, the period in the name.
		assertThat(headers("x-ratelimit-reset-requests-day", "33011.5")).isEqualTo(Duration.ofMillis(33_011_500));
		assertThat(headers("x-rate-limit-reset-tokens", "20s")).isEqualTo(Duration.ofSeconds(20));
		assertThat(headers("x-ratelimit-reset", "30")).isEqualTo(Duration.ofSeconds(30));
		// Epoch seconds and epoch milliseconds (OpenRouter's X-RateLimit-Reset).
		assertThat(headers("x-ratelimit-reset", String.valueOf(NOW.getEpochSecond() + 90)))
			.isEqualTo(Duration.ofSeconds(90));
		assertThat(headers("X-RateLimit-Reset", String.valueOf(NOW.toEpochMilli() + 5000)))
			.isEqualTo(Duration.ofSeconds(5));
		assertThat(headers("ratelimit-reset", "2026-03-24T12:01:00Z")).isEqualTo(Duration.ofMinutes(1));
		assertThat(headers("anthropic-ratelimit-tokens-reset", "2026-03-24T12:00:42Z"))
			.isEqualTo(Duration.ofSeconds(42));
	}

	@Test
	void wordsInTheMessage() {
		assertThat(WaitHints.fromText("Please try again in 20s.", CLOCK)).isEqualTo(Duration.ofSeconds(20));
		assertThat(WaitHints.fromText("Your limit resets at 14:05 UTC.", CLOCK))
			.isEqualTo(Duration.ofMinutes(2 * 60 + 5));
		// A time already past today is tomorrow's.
		assertThat(WaitHints.fromText("quota resets at 11:00 UTC", CLOCK)).isEqualTo(Duration.ofHours(23));
		assertThat(WaitHints.fromText("You will regain access on 2026-04-01 at 00:00 UTC.", CLOCK))
			.isEqualTo(Duration.between(NOW, Instant.parse("2026-04-01T00:00:00Z")));
		assertThat(WaitHints.fromText("usage resets in 3 hours", CLOCK)).isEqualTo(Duration.ofHours(3));
		assertThat(WaitHints.fromText("try again at 2026-03-24T12:10:00Z", CLOCK)).isEqualTo(Duration.ofMinutes(10));
	}

	@Test
	void neverNegativeNorUnbounded() {
		assertThat(headers("x-ratelimit-reset", "-5")).isEqualTo(Duration.ZERO);
		assertThat(headers("x-ratelimit-reset", String.valueOf(NOW.getEpochSecond() - 3600))).isEqualTo(Duration.ZERO);
		assertThat(headers("x-ratelimit-reset", "99999999999999999999")).isLessThanOrEqualTo(WaitHints.MAX);
		assertThat(headers("x-ratelimit-reset", "1e308")).isNull();
		assertThat(headers("x-ratelimit-reset", "soon")).isNull();
		assertThat(headers("x-ms-retry-after-ms", "NaN")).isNull();
		assertThat(WaitHints.fromText("resets at 99:99 UTC", CLOCK)).isNull();
		assertThat(WaitHints.fromText("resets at 2026-13-45", CLOCK)).isNull();
		assertThat(WaitHints.fromText("try again in 9999999999999h", CLOCK)).isEqualTo(WaitHints.MAX);
	}

}
