package io.github.llmresilience.web;

import java.util.List;
import java.util.Map;

import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.extract.ErrorExtractor;
import org.jspecify.annotations.Nullable;

import org.springframework.web.client.RestClientResponseException;

/**
 * Reads a {@link RestClientResponseException} (also thrown by {@code RestTemplate}):
 * status, headers and body. Transport failures ({@code ResourceAccessException}) are read
 * from their cause.
 */
public final class RestClientErrorExtractor implements ErrorExtractor {

	@Override
	public @Nullable ProviderResponse extract(Throwable error) {
		if (error instanceof RestClientResponseException response) {
			return ProviderResponse.of(response.getStatusCode().value(), headers(response),
					response.getResponseBodyAsByteArray());
		}
		return null;
	}

	private static Map<String, List<String>> headers(RestClientResponseException response) {
		return WebClientErrorExtractor.headers(response.getResponseHeaders());
	}

}
