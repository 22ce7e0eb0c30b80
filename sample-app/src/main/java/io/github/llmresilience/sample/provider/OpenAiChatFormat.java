package io.github.llmresilience.sample.provider;

import java.util.List;
import java.util.Map;

import io.github.llmresilience.target.Secret;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

import org.springframework.http.HttpHeaders;

/**
 * OpenAI chat completions ({@code POST /v1/chat/completions}), also spoken by
 * OpenAI-compatible services.
 */
final class OpenAiChatFormat implements ChatFormat {

	@Override
	public String path() {
		return "/v1/chat/completions";
	}

	@Override
	public void authenticate(HttpHeaders headers, @Nullable Secret apiKey) {
		if (apiKey != null) {
			headers.setBearerAuth(apiKey.reveal());
		}
	}

	@Override
	public Map<String, Object> request(String model, String question, boolean stream) {
		if (stream) {
			// The last chunk then carries the usage, for the spend trigger and token
			// pools.
			return Map.of("model", model, "messages", List.of(Map.of("role", "user", "content", question)), "stream",
					true, "stream_options", Map.of("include_usage", true));
		}
		return Map.of("model", model, "messages", List.of(Map.of("role", "user", "content", question)), "stream",
				false);
	}

	@Override
	public String text(JsonNode answer) {
		return answer.path("choices").path(0).path("message").path("content").asString("");
	}

	@Override
	public @Nullable String token(@Nullable String event, @Nullable JsonNode data, String rawData) {
		if ("[DONE]".equals(rawData)) {
			return null;
		}
		return (data != null) ? data.path("choices").path(0).path("delta").path("content").asString("") : "";
	}

}
