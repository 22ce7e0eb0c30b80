package io.github.llmresilience.pool.internal;

import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

import io.github.llmresilience.pool.Capacity;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A scope's capacity read from the vendors' rate-limit headers; garbage is ignored, never
 * an exception.
 */
class CapacityHeadersTests {

	private static Function<String, String> headers(Map<String, String> values) {
		return (name) -> values.get(name.toLowerCase(Locale.ROOT));
	}

	@Test
	void openAiStatesRequestsAndTokensPerMinute() {
		assertThat(CapacityHeaders.read(headers(Map.of("x-ratelimit-limit-requests", "500", "x-ratelimit-limit-tokens",
				"30000", "x-ratelimit-remaining-requests", "499"))))
			.isEqualTo(new Capacity(500, 30000));
		assertThat(CapacityHeaders.remaining(headers(Map.of("x-ratelimit-remaining-requests", "499"))))
			.isEqualTo(new Capacity(499, 0));
	}

	@Test
	void anthropicStatesTokensOrTheSmallerOfInputAndOutput() {
		assertThat(CapacityHeaders.read(headers(
				Map.of("anthropic-ratelimit-requests-limit", "50", "anthropic-ratelimit-tokens-limit", "80000"))))
			.isEqualTo(new Capacity(50, 80000));
		assertThat(CapacityHeaders.read(headers(Map.of("anthropic-ratelimit-requests-limit", "50",
				"anthropic-ratelimit-input-tokens-limit", "40000", "anthropic-ratelimit-output-tokens-limit", "8000"))))
			.isEqualTo(new Capacity(50, 8000));
	}

	@Test
	void noRateLimitHeadersStateNothing() {
		assertThat(CapacityHeaders.read(headers(Map.of("content-type", "application/json")))).isNull();
	}

	@Test
	void garbageNegativeZeroAndHugeValuesAreIgnored() {
		for (String garbage : new String[] { "", " ", "-5", "0", "1e6", "12.5", "ten", "99999999999999999999",
				"1000000000001", "\u0661\u0662" }) {
			assertThat(CapacityHeaders.read(headers(Map.of("x-ratelimit-limit-requests", garbage)))).as(garbage)
				.isNull();
		}
		assertThat(CapacityHeaders.read(headers(Map.of("x-ratelimit-limit-requests", " 60 "))))
			.isEqualTo(new Capacity(60, 0));
	}

	@Test
	void aValueBeyondWhatABucketRefillsIsBoundedToIt() {
		assertThat(CapacityHeaders.read(headers(
				Map.of("x-ratelimit-limit-requests", "1000000000000", "x-ratelimit-limit-tokens", "60000000001"))))
			.isEqualTo(new Capacity(Capacity.MAX_PER_MINUTE, Capacity.MAX_PER_MINUTE));
		assertThat(CapacityHeaders.remaining(headers(Map.of("x-ratelimit-remaining-requests", "999999999999"))))
			.isEqualTo(new Capacity(Capacity.MAX_PER_MINUTE, 0));
	}

	@Test
	void aHeaderLookupThatThrowsStatesNothing() {
		assertThat(CapacityHeaders.read((name) -> {
			throw new IllegalStateException("broken headers");
		})).isNull();
	}

}
