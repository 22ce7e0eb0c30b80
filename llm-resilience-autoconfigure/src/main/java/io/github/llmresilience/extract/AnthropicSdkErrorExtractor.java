package io.github.llmresilience.extract;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.anthropic.core.JsonValue;
import com.anthropic.core.ObjectMappers;
import com.anthropic.core.http.Headers;
import com.anthropic.errors.AnthropicServiceException;
import com.anthropic.errors.SseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import io.github.llmresilience.classify.ProviderResponse;
import org.jspecify.annotations.Nullable;

/**
 * Reads the Anthropic Java SDK's {@link AnthropicServiceException}: status, headers and
 * body; its {@link SseException} (an error event inside a 200 stream) as that stream
 * event. Set the SDK's {@code maxRetries(0)} when this starter owns retrying.
 */
public final class AnthropicSdkErrorExtractor implements ErrorExtractor {

	@Override
	public @Nullable ProviderResponse extract(Throwable error) {
		if (error instanceof SseException event) {
			// An error event inside a 200 stream (event: error): the headers are the
			// stream's, the body is the event's data.
			return ProviderResponse.streamEvent("error", eventData(body(event.body())));
		}
		if (error instanceof AnthropicServiceException service) {
			return ProviderResponse.of(service.statusCode(), headers(service.headers()), body(service.body()));
		}
		return null;
	}

	/**
	 * The data of Anthropic's error event, {@code {"type":"error","error":{...}}}, also
	 * when the SDK kept only its {@code error} member.
	 */
	private static String eventData(String body) {
		String trimmed = body.trim();
		return (trimmed.startsWith("{") && !trimmed.contains("\"error\""))
				? "{\"type\":\"error\",\"error\":" + trimmed + "}" : body;
	}

	/** The body as JSON: a {@code JsonValue}'s {@code toString()} is not JSON. */
	private static String body(JsonValue body) {
		try {
			return ObjectMappers.jsonMapper().writeValueAsString(body);
		}
		catch (JsonProcessingException | RuntimeException ex) {
			return String.valueOf(body);
		}
	}

	private static Map<String, List<String>> headers(Headers headers) {
		Map<String, List<String>> map = new LinkedHashMap<>();
		for (String name : headers.names()) {
			map.put(name, headers.values(name));
		}
		return map;
	}

}
