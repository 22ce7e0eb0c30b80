package io.github.llmresilience.web;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.io.UncheckedIOException;

import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.execute.Attempt;
import io.github.llmresilience.execute.CallOptions;
import io.github.llmresilience.execute.LlmRejectedException;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.extract.ProviderAnswerException;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpRequest;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * Protects every request of a {@code RestClient} (or {@code RestTemplate}) with one
 * target: its gate, account and breaker, classification of every answer, and same-target
 * retries:
 *
 * <pre class="code">
 * RestClient anthropic = RestClient.builder()
 *     .baseUrl("https://api.anthropic.com")
 *     .requestInterceptor(new LlmResilienceClientHttpRequestInterceptor(resilience, "claude"))
 *     .build();
 * </pre>
 *
 * What is classified, with the target's classifier:
 * <ul>
 * <li>every 4xx and 5xx answer (its first {@link ProviderResponse#MAX_BODY_BYTES
 * bytes});</li>
 * <li>every 2xx JSON answer ({@code application/json} or {@code +json}), from its first
 * {@code MAX_BODY_BYTES}: a proxy's error envelope ({@code {"error": {...}}} with status
 * 200) is an outage and is retried and recorded as one; a refusal
 * ({@code finish_reason: content_filter}, {@code stop_reason: refusal}) is a
 * {@code CONTENT_FILTER}. The body still reaches the client whole and unchanged, however
 * long it is;</li>
 * <li>transport failures and timeouts.</li>
 * </ul>
 * Other answers, event streams ({@code text/event-stream}) above all, are handed on
 * unread, so tokens are not held back.
 *
 * <p>
 * A rejected request (400, refusal) comes back as the provider's own response, a 200
 * refusal as its 200, so the client raises its usual exception or decodes the refusal as
 * usual; an unusable target raises {@code LlmUnavailableException}.
 */
public final class LlmResilienceClientHttpRequestInterceptor implements ClientHttpRequestInterceptor {

	private final LlmResilience resilience;

	private final String target;

	public LlmResilienceClientHttpRequestInterceptor(LlmResilience resilience, String target) {
		this.resilience = resilience;
		this.target = target;
		resilience.state().target(target);
	}

	@Override
	public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
			throws IOException {
		// A 2xx answer classified as a failure whose body is longer than what was read is
		// kept open until the engine decides: handed back whole when it rejects the call,
		// closed when it retries or gives up.
		Pending pending = new Pending();
		try {
			return this.resilience.callOnTarget(this.target, CallOptions.NONE, (attempt) -> {
				pending.close();
				ClientHttpResponse response = execution.execute(request, body);
				if (response.getStatusCode().isError()) {
					throw new ErrorAnswer(BufferedResponse.of(response));
				}
				if (!JsonAnswers.classifiable(response.getStatusCode(), response.getHeaders())) {
					attempt.answered(WebClientErrorExtractor.headers(response.getHeaders()), null);
					return response;
				}
				return classified(response, pending, attempt);
			});
		}
		catch (LlmRejectedException rejected) {
			if (rejected.getCause() instanceof ErrorAnswer answer) {
				pending.handedBack(answer.answer);
				return answer.answer;
			}
			throw rejected;
		}
		finally {
			pending.close();
		}
	}

	private ClientHttpResponse classified(ClientHttpResponse response, Pending pending, Attempt attempt)
			throws IOException {
		byte[] prefix;
		try {
			prefix = response.getBody().readNBytes(ProviderResponse.MAX_BODY_BYTES);
		}
		catch (IOException | RuntimeException ex) {
			response.close();
			throw ex;
		}
		ProviderResponse answer = ProviderResponse.of(response.getStatusCode().value(),
				WebClientErrorExtractor.headers(response.getHeaders()), prefix);
		if (this.resilience.classify(this.target, answer).outcome() == Outcome.SUCCESS) {
			// Its usage and rate-limit headers, for spend, pools and meters.
			attempt.answered(answer);
			return new PrefixedResponse(response, prefix);
		}
		if (prefix.length < ProviderResponse.MAX_BODY_BYTES) {
			// The whole body is in hand (readNBytes stops short only at its end): free
			// the connection before a backoff.
			throw new ErrorAnswer(BufferedResponse.of(response, prefix), answer);
		}
		PrefixedResponse whole = new PrefixedResponse(response, prefix);
		pending.keep(whole);
		throw new ErrorAnswer(whole, answer);
	}

	/** An answer to classify, kept so that it can be handed back. */
	private static final class ErrorAnswer extends ProviderAnswerException {

		private final transient ClientHttpResponse answer;

		ErrorAnswer(BufferedResponse buffered) {
			this(buffered, ProviderResponse.of(buffered.status.value(),
					WebClientErrorExtractor.headers(buffered.headers), buffered.body));
		}

		ErrorAnswer(ClientHttpResponse answer, ProviderResponse response) {
			super(response);
			this.answer = answer;
		}

	}

	/** The one open answer of a call that the engine may still hand back. */
	private static final class Pending {

		private @Nullable ClientHttpResponse response;

		void keep(ClientHttpResponse response) {
			this.response = response;
		}

		void handedBack(ClientHttpResponse response) {
			if (this.response == response) {
				this.response = null;
			}
		}

		void close() {
			ClientHttpResponse open = this.response;
			this.response = null;
			if (open != null) {
				open.close();
			}
		}

	}

	/** A response whose first bytes were read: they come first, then the rest, once. */
	private static final class PrefixedResponse implements ClientHttpResponse {

		private final ClientHttpResponse response;

		private final byte[] prefix;

		private @Nullable InputStream body;

		PrefixedResponse(ClientHttpResponse response, byte[] prefix) {
			this.response = response;
			this.prefix = prefix;
		}

		@Override
		public HttpStatusCode getStatusCode() throws IOException {
			return this.response.getStatusCode();
		}

		@Override
		public String getStatusText() throws IOException {
			return this.response.getStatusText();
		}

		@Override
		public HttpHeaders getHeaders() {
			return this.response.getHeaders();
		}

		@Override
		public InputStream getBody() throws IOException {
			if (this.body == null) {
				// The rest is read from the stream already opened, never from a new one.
				this.body = new SequenceInputStream(new ByteArrayInputStream(this.prefix), this.response.getBody());
			}
			return this.body;
		}

		@Override
		public void close() {
			this.response.close();
		}

	}

	private static final class BufferedResponse implements ClientHttpResponse {

		private final HttpStatusCode status;

		private final String statusText;

		private final HttpHeaders headers;

		private final byte[] body;

		private BufferedResponse(HttpStatusCode status, String statusText, HttpHeaders headers, byte[] body) {
			this.status = status;
			this.statusText = statusText;
			this.headers = headers;
			this.body = body;
		}

		static BufferedResponse of(ClientHttpResponse response) {
			try (response) {
				return of(response, response.getBody().readNBytes(ProviderResponse.MAX_BODY_BYTES));
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

		/** The response with a body already read, closed. */
		static BufferedResponse of(ClientHttpResponse response, byte[] body) {
			try (response) {
				HttpHeaders headers = new HttpHeaders();
				headers.addAll(response.getHeaders());
				return new BufferedResponse(response.getStatusCode(), statusText(response), headers, body);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

		private static String statusText(ClientHttpResponse response) {
			try {
				return response.getStatusText();
			}
			catch (IOException | RuntimeException ex) {
				return "";
			}
		}

		@Override
		public HttpStatusCode getStatusCode() {
			return this.status;
		}

		@Override
		public String getStatusText() {
			return this.statusText;
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
