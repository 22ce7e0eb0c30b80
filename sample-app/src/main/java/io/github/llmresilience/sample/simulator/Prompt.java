package io.github.llmresilience.sample.simulator;

/**
 * What a chat request asked.
 *
 * @param model the model named in the request
 * @param question the text of its messages
 * @param stream whether it asked for a stream
 * @param streamUsage whether a stream must end with its usage (OpenAI's
 * {@code stream_options.include_usage}; Anthropic streams always carry it)
 */
record Prompt(String model, String question, boolean stream, boolean streamUsage) {

	Prompt(String model, String question, boolean stream) {
		this(model, question, stream, false);
	}

	/** The largest prompt a simulated model accepts, in tokens. */
	static final int CONTEXT_TOKENS = 8192;

	/**
	 * Tokens of the prompt, estimated as vendors' tokenizers roughly count English: four
	 * characters each.
	 */
	int tokens() {
		return 8 + this.question.length() / 4;
	}

	boolean fitsContext() {
		return tokens() <= CONTEXT_TOKENS;
	}

}
