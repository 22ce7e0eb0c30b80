package io.github.llmresilience.usage;

/**
 * The tokens one answer used, as the provider reported them.
 *
 * @param inputTokens tokens read: the prompt, including cached and cache-written input
 * @param outputTokens tokens written: the answer, including reasoning or thinking tokens
 */
public record Usage(long inputTokens, long outputTokens) {

	/** Nothing reported. */
	public static final Usage NONE = new Usage(0, 0);

	public Usage {
		if (inputTokens < 0 || outputTokens < 0) {
			throw new IllegalArgumentException(
					"Token counts must not be negative: input " + inputTokens + ", output " + outputTokens);
		}
	}

	/** Input and output tokens together (saturating, never negative). */
	public long totalTokens() {
		long total = this.inputTokens + this.outputTokens;
		return (total < 0) ? Long.MAX_VALUE : total;
	}

	/**
	 * The larger of each count: how the events of one stream combine, since every vendor
	 * reports running totals (Anthropic's {@code message_start} the input and
	 * {@code message_delta} the output so far, Gemini's every chunk the whole so far,
	 * OpenAI's last chunk the whole).
	 */
	public Usage max(Usage other) {
		if (other.inputTokens <= this.inputTokens && other.outputTokens <= this.outputTokens) {
			return this;
		}
		return new Usage(Math.max(this.inputTokens, other.inputTokens),
				Math.max(this.outputTokens, other.outputTokens));
	}

}
