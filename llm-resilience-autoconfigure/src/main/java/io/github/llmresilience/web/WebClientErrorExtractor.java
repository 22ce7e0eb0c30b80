package io.github.llmresilience.web;

import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.execute.ErrorExtractor;

import org.springframework.web.reactive.function.client.WebClientResponseException;

/**
 * Reads a {@link WebClientResponseException}: status, headers and body. Transport
 * failures ({@code WebClientRequestException}) are read from their cause.
 */
public final class WebClientErrorExtractor implements ErrorExtractor {

	@Override
	public ProviderResponse extract(Throwable error) {
		if (error instanceof WebClientResponseException response) {
			return ProviderResponse.of(response.getStatusCode().value(), response.getHeaders().asMultiValueMap(),
					response.getResponseBodyAsByteArray());
		}
		return null;
	}

}
