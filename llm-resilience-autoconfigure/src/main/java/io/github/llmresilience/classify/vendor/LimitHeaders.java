package io.github.llmresilience.classify.vendor;

import org.jspecify.annotations.Nullable;

/**
 * The headers in which a vendor states a quota scope's capacity per minute and what is
 * left of it, on every answer.
 *
 * @param requestsLimit requests per minute
 * @param tokensLimit tokens per minute
 * @param inputTokensLimit input tokens per minute, read (with the output's) only when
 * {@code tokensLimit} states nothing; {@code null} when the vendor has none
 * @param outputTokensLimit output tokens per minute, as the input's
 * @param requestsRemaining requests left
 * @param tokensRemaining tokens left
 */
public record LimitHeaders(String requestsLimit, String tokensLimit, @Nullable String inputTokensLimit,
		@Nullable String outputTokensLimit, String requestsRemaining, String tokensRemaining) {

}
