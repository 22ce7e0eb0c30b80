package io.github.llmresilience.sample.provider;

import java.util.Map;

import io.github.llmresilience.target.Secret;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

import org.springframework.http.HttpHeaders;

/**
 * One vendor's chat API as a client sees it: where to send, how to authenticate, what to
 * send and where the answer's text is.
 */
interface ChatFormat {

	/** The chat endpoint's path below the target's base URL. */
	String path();

	void authenticate(HttpHeaders headers, @Nullable Secret apiKey);

	/** The request body for one user question. */
	Map<String, Object> request(String model, String question, boolean stream);

	/** The text of a complete answer. */
	String text(JsonNode answer);

	/**
	 * The text one stream event adds: {@code ""} for an event without text, {@code null}
	 * for the event that ends the answer.
	 */
	@Nullable String token(@Nullable String event, @Nullable JsonNode data, String rawData);

}
