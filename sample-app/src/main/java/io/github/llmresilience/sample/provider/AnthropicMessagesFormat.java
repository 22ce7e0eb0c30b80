package io.github.llmresilience.sample.provider;

import java.util.List;
import java.util.Map;

import io.github.llmresilience.target.Secret;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

import org.springframework.http.HttpHeaders;

/**
 * Anthropic messages ({@code POST /v1/messages}).
 */
final class AnthropicMessagesFormat implements ChatFormat {

	private static final int MAX_TOKENS = 1024;

	@Override
	public String path() {
		return "/v1/messages";
	}

	@Override
	public void authenticate(HttpHeaders headers, @Nullable Secret apiKey) {
		if (apiKey != null) {
			headers.set("x-api-key", apiKey.reveal());
		}
		headers.set("anthropic-version", "2023-06-01");
	}

	@Override
	public Map<String, Object> request(String model, String question, boolean stream) {
		return Map.of("model", model, "max_tokens", MAX_TOKENS, "messages",
				List.of(Map.of("role", "user", "content", question)), "stream", stream);
	}

	@Override
	public String text(JsonNode answer) {
		StringBuilder text = new StringBuilder();
		for (JsonNode block : answer.path("content")) {
			if ("text".equals(block.path("type").asString(""))) {
				text.append(block.path("text").asString(""));
			}
		}
		return text.toString();
	}

	@Override
	public @Nullable String token(@Nullable String event, @Nullable JsonNode data, String rawData) {
		if ("message_stop".equals(event)) {
			return null;
		}
		if ("content_block_delta".equals(event) && data != null) {
			return data.path("delta").path("text").asString("");
		}
		return "";
	}

}
