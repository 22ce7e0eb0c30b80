package io.github.llmresilience.web;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.extract.ErrorExtractor;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.web.reactive.function.client.WebClientResponseException;

/**
 * Reads a {@link WebClientResponseException}: status, headers and body. Transport
 * failures ({@code WebClientRequestException}) are read from their cause.
 */
public final class WebClientErrorExtractor implements ErrorExtractor {

	@Override
	public @Nullable ProviderResponse extract(Throwable error) {
		if (error instanceof WebClientResponseException response) {
			if (response.getStatusCode().is2xxSuccessful()) {
				// WebClient wraps a failure while reading a 200's body (a stream whose
				// connection dropped) in a response exception with the 200 status: the
				// provider did not answer "success", the cause says what happened.
				return null;
			}
			return ProviderResponse.of(response.getStatusCode().value(), headers(response.getHeaders()),
					response.getResponseBodyAsByteArray());
		}
		return null;
	}

	static Map<String, List<String>> headers(@Nullable HttpHeaders headers) {
		Map<String, List<String>> map = new LinkedHashMap<>();
		if (headers != null) {
			headers.forEach(map::put);
		}
		return map;
	}

}
