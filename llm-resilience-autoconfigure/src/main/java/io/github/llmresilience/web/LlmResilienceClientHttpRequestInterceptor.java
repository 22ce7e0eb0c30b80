package io.github.llmresilience.web;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.execute.CallOptions;
import io.github.llmresilience.execute.LlmRejectedException;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.execute.ProviderAnswerException;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpRequest;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * Protects every request of a {@code RestClient} (or {@code RestTemplate}) with one
 * target: its gate, account and breaker, classification of error answers, and same-target
 * retries:
 *
 * <pre class="code">
 * RestClient anthropic = RestClient.builder()
 *     .baseUrl("https://api.anthropic.com")
 *     .requestInterceptor(new LlmResilienceClientHttpRequestInterceptor(resilience, "claude"))
 *     .build();
 * </pre>
 *
 * A rejected request (400, refusal) comes back as the provider's own response, so the
 * client raises its usual exception; an unusable target raises
 * {@code LlmUnavailableException}.
 */
public final class LlmResilienceClientHttpRequestInterceptor implements ClientHttpRequestInterceptor {

	private final LlmResilience resilience;

	private final String target;

	public LlmResilienceClientHttpRequestInterceptor(LlmResilience resilience, String target) {
		this.resilience = resilience;
		this.target = target;
		resilience.registry().target(target);
	}

	@Override
	public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
			throws IOException {
		try {
			return this.resilience.callOnTarget(this.target, CallOptions.NONE, (attempt) -> {
				ClientHttpResponse response = execution.execute(request, body);
				if (!response.getStatusCode().isError()) {
					return response;
				}
				throw new ErrorAnswer(BufferedResponse.of(response));
			});
		}
		catch (LlmRejectedException rejected) {
			if (rejected.getCause() instanceof ErrorAnswer answer) {
				return answer.buffered;
			}
			throw rejected;
		}
	}

	/** An error answer, buffered so that it can be classified and handed back. */
	private static final class ErrorAnswer extends ProviderAnswerException {

		private final transient BufferedResponse buffered;

		ErrorAnswer(BufferedResponse buffered) {
			super(ProviderResponse.of(buffered.status.value(), WebClientErrorExtractor.headers(buffered.headers),
					buffered.body));
			this.buffered = buffered;
		}

	}

	private static final class BufferedResponse implements ClientHttpResponse {

		private final HttpStatusCode status;

		private final HttpHeaders headers;

		private final byte[] body;

		private BufferedResponse(HttpStatusCode status, HttpHeaders headers, byte[] body) {
			this.status = status;
			this.headers = headers;
			this.body = body;
		}

		static BufferedResponse of(ClientHttpResponse response) {
			try (response) {
				byte[] body = response.getBody().readNBytes(ProviderResponse.MAX_BODY_BYTES);
				HttpHeaders headers = new HttpHeaders();
				headers.addAll(response.getHeaders());
				return new BufferedResponse(response.getStatusCode(), headers, body);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

		@Override
		public HttpStatusCode getStatusCode() {
			return this.status;
		}

		@Override
		public String getStatusText() {
			return "";
		}

		@Override
		public HttpHeaders getHeaders() {
			return this.headers;
		}

		@Override
		public InputStream getBody() {
			return new ByteArrayInputStream(this.body);
		}

		@Override
		public void close() {
		}

	}

}
