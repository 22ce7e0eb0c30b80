package io.github.llmresilience.classify.vendor;

import org.jspecify.annotations.Nullable;

/**
 * The headers in which a vendor states a wait, beside the standard {@code retry-after}
 * that {@link WaitHints} reads for every vendor: a bare wait in milliseconds, and the
 * reset of each rate-limit dimension ({@code requests}, {@code tokens}, ...) with the
 * header that says what is left of it, so that the exhausted dimension's reset wins.
 *
 * @param retryAfterMillis the header of a bare wait in milliseconds, or {@code null}
 * @param resetPrefix what a reset header's name starts with, or {@code null} when the
 * vendor states no reset
 * @param resetSuffix what it ends with ({@code ""} when the dimension ends the name)
 * @param remainingPrefix what the name of the header that says what is left of the same
 * dimension starts with
 * @param remainingSuffix what it ends with
 * @param resetInstant whether a reset is an RFC 3339 instant rather than a Go duration
 * ({@code 6m0s})
 */
public record WaitHeaders(@Nullable String retryAfterMillis, @Nullable String resetPrefix, String resetSuffix,
		String remainingPrefix, String remainingSuffix, boolean resetInstant) {

	/** No header of the vendor's own. */
	public static final WaitHeaders NONE = new WaitHeaders(null, null, "", "", "", false);

	/**
	 * Resets as durations, the dimension at the end of the names:
	 * {@code x-ratelimit-reset-tokens: 6m0s} beside {@code x-ratelimit-remaining-tokens}.
	 */
	public static WaitHeaders resetDurations(String resetPrefix, String remainingPrefix) {
		return new WaitHeaders(null, resetPrefix, "", remainingPrefix, "", false);
	}

	/**
	 * Resets as instants, the dimension inside the names:
	 * {@code anthropic-ratelimit-tokens-reset} beside
	 * {@code anthropic-ratelimit-tokens-remaining}.
	 */
	public static WaitHeaders resetInstants(String prefix, String resetSuffix, String remainingSuffix) {
		return new WaitHeaders(null, prefix, resetSuffix, prefix, remainingSuffix, true);
	}

	/**
	 * The same, with a header of a bare wait in milliseconds ({@code retry-after-ms}).
	 */
	public WaitHeaders withRetryAfterMillis(String header) {
		return new WaitHeaders(header, this.resetPrefix, this.resetSuffix, this.remainingPrefix, this.remainingSuffix,
				this.resetInstant);
	}

}
