package io.github.llmresilience.sample.simulator;

/**
 * The API a simulated target speaks.
 */
public enum SimulatedVendor {

	/** OpenAI chat completions: {@code POST /v1/chat/completions}. */
	OPENAI("openai", "/v1/chat/completions"),

	/** Anthropic messages: {@code POST /v1/messages}. */
	ANTHROPIC("anthropic", "/v1/messages");

	private final String id;

	private final String path;

	SimulatedVendor(String id, String path) {
		this.id = id;
		this.path = path;
	}

	public String id() {
		return this.id;
	}

	/** The path of the chat endpoint below the target's base URL. */
	public String path() {
		return this.path;
	}

}
