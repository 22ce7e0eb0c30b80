package io.github.llmresilience.sample.drill;

import java.util.Locale;

/** How a drill's jobs call the providers: {@code --client=...}. */
public enum DrillClient {

	/** The answers service: WebClient calls through the chain (the default). */
	WEBCLIENT,

	/**
	 * The chain's Spring AI {@code ChatModel} ({@code <chain>ChatModel}) over Spring AI's
	 * own OpenAI and Anthropic chat models.
	 */
	SPRING_AI,

	/**
	 * Spring AI alone, with its defaults: the failing target's chat model called
	 * directly, no chain, the SDK's own retries (run with
	 * {@code --client=spring-ai-plain}, which keeps them).
	 */
	SPRING_AI_PLAIN;

	/** The name on the command line: {@code spring-ai}, {@code spring-ai-plain}. */
	public String id() {
		return name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

	/**
	 * @throws IllegalArgumentException naming the clients there are
	 */
	public static DrillClient of(String id) {
		for (DrillClient client : values()) {
			if (client.id().equals(id)) {
				return client;
			}
		}
		throw new IllegalArgumentException("--client must be webclient, spring-ai or spring-ai-plain");
	}

}
