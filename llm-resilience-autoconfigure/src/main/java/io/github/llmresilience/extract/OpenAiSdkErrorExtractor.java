package io.github.llmresilience.extract;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.openai.core.JsonObject;
import com.openai.core.JsonValue;
import com.openai.core.ObjectMappers;
import com.openai.core.http.Headers;
import com.openai.errors.OpenAIServiceException;
import com.openai.errors.SseException;
import io.github.llmresilience.classify.ProviderResponse;
import org.jspecify.annotations.Nullable;

/**
 * Reads the OpenAI Java SDK's {@link OpenAIServiceException}: status, headers and body;
 * its {@link SseException} (an error event inside a 200 stream) as that stream event. Its
 * transport failures ({@code OpenAIIoException}) are read from their cause. Set the SDK's
 * {@code maxRetries(0)} when this starter owns retrying, so retries do not multiply.
 */
public final class OpenAiSdkErrorExtractor implements ErrorExtractor {

	@Override
	public @Nullable ProviderResponse extract(Throwable error) {
		if (error instanceof SseException event) {
			// An error event inside a 200 stream: the headers are the stream's
			// (text/event-stream), the body is the event's data.
			return ProviderResponse.streamEvent(null, body(event.body()));
		}
		if (error instanceof OpenAIServiceException service) {
			return ProviderResponse.of(service.statusCode(), headers(service.headers()), body(service.body()));
		}
		return null;
	}

	/**
	 * The SDK keeps only the {@code error} member of the body, as a {@code JsonValue}
	 * whose {@code toString()} is not JSON: write it as JSON inside its envelope again.
	 */
	private static String body(JsonValue body) {
		try {
			String json = ObjectMappers.jsonMapper().writeValueAsString(body);
			return (body instanceof JsonObject object && !object.values().containsKey("error"))
					? "{\"error\":" + json + "}" : json;
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
