package io.github.llmresilience.extract;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.anthropic.core.JsonValue;
import com.anthropic.core.ObjectMappers;
import com.anthropic.core.http.Headers;
import com.anthropic.errors.AnthropicServiceException;
import com.fasterxml.jackson.core.JsonProcessingException;
import io.github.llmresilience.classify.ProviderResponse;
import org.jspecify.annotations.Nullable;

/**
 * Reads the Anthropic Java SDK's {@link AnthropicServiceException}: status, headers and
 * body. Set the SDK's {@code maxRetries(0)} when this starter owns retrying.
 */
public final class AnthropicSdkErrorExtractor implements ErrorExtractor {

	@Override
	public @Nullable ProviderResponse extract(Throwable error) {
		if (error instanceof AnthropicServiceException service) {
			return ProviderResponse.of(service.statusCode(), headers(service.headers()), body(service.body()));
		}
		return null;
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
