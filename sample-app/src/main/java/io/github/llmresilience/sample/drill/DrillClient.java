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
	SPRING_AI_PLAIN,

	/**
	 * The chain's LangChain4j {@code ChatModel} ({@code <chain>Lc4jChatModel}) over
	 * LangChain4j's own OpenAI and Anthropic chat models.
	 */
	LANGCHAIN4J,

	/**
	 * LangChain4j alone, with its defaults: the failing target's LangChain4j chat model
	 * called directly, no chain, its own retries (run with
	 * {@code --client=langchain4j-plain}, which keeps them).
	 */
	LANGCHAIN4J_PLAIN;

	/**
	 * The name on the command line: {@code spring-ai}, {@code spring-ai-plain},
	 * {@code langchain4j}, {@code langchain4j-plain}.
	 */
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
		throw new IllegalArgumentException(
				"--client must be webclient, spring-ai, spring-ai-plain, langchain4j or langchain4j-plain");
	}

}
