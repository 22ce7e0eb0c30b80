package io.github.llmresilience.pool.internal;

import java.util.List;
import java.util.function.Function;

import io.github.llmresilience.classify.vendor.LimitHeaders;
import io.github.llmresilience.classify.vendor.Vendor;
import io.github.llmresilience.classify.vendor.Vendors;
import io.github.llmresilience.pool.Capacity;
import org.jspecify.annotations.Nullable;

/**
 * A quota scope's capacity as the provider states it on every answer, in the
 * {@link Vendor#limitHeaders() headers} of the registered vendors, the first vendor's
 * that states a value winning: today OpenAI and Azure's
 * {@code x-ratelimit-limit-requests} / {@code x-ratelimit-limit-tokens} (per minute),
 * Anthropic's {@code anthropic-ratelimit-requests-limit} /
 * {@code anthropic-ratelimit-tokens-limit}, or, without the latter, the smaller of
 * {@code anthropic-ratelimit-input-tokens-limit} and
 * {@code anthropic-ratelimit-output-tokens-limit}. A value that is not a whole number
 * between 1 and 10^12 is ignored, never an exception; one above what a pool's bucket
 * holds ({@link Capacity#MAX_PER_MINUTE}) is bounded to it.
 */
public final class CapacityHeaders {

	private static final long MAX = 1_000_000_000_000L;

	/** Every registered vendor's limit headers, in registration order. */
	private static final List<LimitHeaders> FORMS = Vendors.distinct(Vendor::limitHeaders);

	private CapacityHeaders() {
	}

	/**
	 * @param header the answer's header by name (case-insensitive), or {@code null}
	 * @return the capacity the headers state, or {@code null} when they state none
	 */
	public static @Nullable Capacity read(Function<String, @Nullable String> header) {
		long requests = 0;
		long tokens = 0;
		for (LimitHeaders form : FORMS) {
			if (requests <= 0) {
				requests = number(header, form.requestsLimit());
			}
			if (tokens <= 0) {
				tokens = tokens(header, form);
			}
		}
		return (requests > 0 || tokens > 0) ? new Capacity(Capacity.bounded(requests), Capacity.bounded(tokens)) : null;
	}

	/**
	 * What the same answer says is left of the capacity now
	 * ({@code x-ratelimit-remaining-requests},
	 * {@code anthropic-ratelimit-requests-remaining} and the token variants); zero where
	 * it says nothing.
	 */
	public static Capacity remaining(Function<String, @Nullable String> header) {
		long requests = 0;
		long tokens = 0;
		for (LimitHeaders form : FORMS) {
			if (requests <= 0) {
				requests = number(header, form.requestsRemaining());
			}
			if (tokens <= 0) {
				tokens = number(header, form.tokensRemaining());
			}
		}
		return new Capacity(Capacity.bounded(requests), Capacity.bounded(tokens));
	}

	/**
	 * The tokens per minute; without a total, the smaller of the input and output limits
	 * where the vendor states them apart.
	 */
	private static long tokens(Function<String, @Nullable String> header, LimitHeaders form) {
		long tokens = number(header, form.tokensLimit());
		if (tokens == 0 && form.inputTokensLimit() != null && form.outputTokensLimit() != null) {
			long input = number(header, form.inputTokensLimit());
			long output = number(header, form.outputTokensLimit());
			tokens = (input > 0 && output > 0) ? Math.min(input, output) : Math.max(input, output);
		}
		return tokens;
	}

	private static long number(Function<String, @Nullable String> header, String name) {
		String value;
		try {
			value = header.apply(name);
		}
		catch (RuntimeException ex) {
			return 0;
		}
		if (value == null) {
			return 0;
		}
		value = value.trim();
		if (value.isEmpty() || value.length() > 13) {
			return 0;
		}
		long number = 0;
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (c < '0' || c > '9') {
				return 0;
			}
			number = number * 10 + (c - '0');
		}
		return (number > MAX) ? 0 : number;
	}

}
