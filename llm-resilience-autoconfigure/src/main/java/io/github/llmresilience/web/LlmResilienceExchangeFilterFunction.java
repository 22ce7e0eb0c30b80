package io.github.llmresilience.web;

import java.util.concurrent.atomic.AtomicReference;

import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.execute.Attempt;
import io.github.llmresilience.execute.CallOptions;
import io.github.llmresilience.execute.LlmRejectedException;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.extract.ProviderAnswerException;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import org.springframework.web.reactive.function.client.WebClientResponseException;

/**
 * Protects every exchange of a {@code WebClient} with one target: its gate, account and
 * breaker, classification of every answer, and same-target retries. For users who do not
 * need chains:
 *
 * <pre class="code">
 * WebClient openai = WebClient.builder()
 *     .baseUrl("https://api.openai.com")
 *     .filter(new LlmResilienceExchangeFilterFunction(resilience, "openai-primary"))
 *     .build();
 * </pre>
 *
 * What is classified, with the target's classifier:
 * <ul>
 * <li>every 4xx and 5xx answer;</li>
 * <li>every 2xx JSON answer ({@code application/json} or {@code +json}), from its first
 * {@link ProviderResponse#MAX_BODY_BYTES} bytes: a proxy's error envelope
 * ({@code {"error": {...}}} with status 200) is an outage and is retried and recorded as
 * one; a refusal ({@code finish_reason: content_filter}, {@code stop_reason: refusal}) is
 * a {@code CONTENT_FILTER}. The buffers read are handed on followed by the rest of the
 * body, so the body reaches the client whole and unchanged, however long it is;</li>
 * <li>transport failures and timeouts.</li>
 * </ul>
 * Other answers, event streams ({@code text/event-stream}) above all, are handed on
 * unread, so tokens are not held back; a stream is classified event by event by
 * {@code OpenAiChatStream} or {@code AnthropicMessageStream} and
 * {@code LlmResilience.stream}.
 *
 * <p>
 * A rejected request (400, refusal) comes back as the provider's own response, a 200
 * refusal as its 200, so {@code retrieve()} raises its usual exception or decodes the
 * refusal as usual; an unusable target raises {@code LlmUnavailableException}. The
 * attempt timeout covers the exchange up to the response headers, and for a JSON 2xx up
 * to the bytes classified. Request bodies must be repeatable for retries
 * ({@code bodyValue} is).
 */
public final class LlmResilienceExchangeFilterFunction implements ExchangeFilterFunction {

	private final LlmResilience resilience;

	private final String target;

	public LlmResilienceExchangeFilterFunction(LlmResilience resilience, String target) {
		this.resilience = resilience;
		this.target = target;
		resilience.state().target(target);
	}

	@Override
	public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
		return Mono.defer(() -> {
			// A 2xx answer classified as a failure, kept until the engine decides: handed
			// back when it rejects the call, discarded when it retries or gives up.
			AtomicReference<@Nullable PrefixedAnswer> pending = new AtomicReference<>();
			return this.resilience.executeOnTarget(this.target, CallOptions.NONE, (attempt) -> Mono.defer(() -> {
				discard(pending.getAndSet(null));
				return next.exchange(request).flatMap((response) -> classified(response, pending, attempt));
			}))
				.onErrorResume(LlmRejectedException.class, (rejected) -> handBack(rejected, pending))
				.doFinally((signal) -> discard(pending.getAndSet(null)));
		});
	}

	private Mono<ClientResponse> classified(ClientResponse response, AtomicReference<@Nullable PrefixedAnswer> pending,
			Attempt attempt) {
		if (response.statusCode().isError()) {
			return response.createException().flatMap(Mono::error);
		}
		if (!JsonAnswers.classifiable(response.statusCode(), response.headers().asHttpHeaders())) {
			attempt.answered(WebClientErrorExtractor.headers(response.headers().asHttpHeaders()), null);
			return Mono.just(response);
		}
		return BodyPrefix.read(response.bodyToFlux(DataBuffer.class), ProviderResponse.MAX_BODY_BYTES)
			.flatMap((prefix) -> {
				// The original body is subscribed already: the new response reads it
				// through the prefix, never again.
				ClientResponse whole = response.mutate().body((unused) -> prefix.body()).build();
				ProviderResponse answer = ProviderResponse.of(response.statusCode().value(),
						WebClientErrorExtractor.headers(response.headers().asHttpHeaders()), prefix.bytes());
				if (this.resilience.classify(this.target, answer).outcome() == Outcome.SUCCESS) {
					// Its usage and rate-limit headers, for spend, pools and meters.
					attempt.answered(answer);
					return Mono.just(whole);
				}
				PrefixedAnswer failure = new PrefixedAnswer(answer, whole, prefix);
				pending.set(failure);
				return Mono.error(failure);
			});
	}

	private static Mono<ClientResponse> handBack(LlmRejectedException rejected,
			AtomicReference<@Nullable PrefixedAnswer> pending) {
		if (rejected.getCause() instanceof PrefixedAnswer answer && pending.compareAndSet(answer, null)) {
			return Mono.just(answer.response);
		}
		if (rejected.getCause() instanceof WebClientResponseException response) {
			return Mono.just(replay(response));
		}
		return Mono.error(rejected);
	}

	private static void discard(@Nullable PrefixedAnswer answer) {
		if (answer != null) {
			answer.prefix.discard();
		}
	}

	private static ClientResponse replay(WebClientResponseException response) {
		return ClientResponse.create(response.getStatusCode())
			.headers((headers) -> headers.addAll(response.getHeaders()))
			.body(response.getResponseBodyAsString())
			.build();
	}

	/** A 2xx answer classified as a failure, with its body still whole. */
	private static final class PrefixedAnswer extends ProviderAnswerException {

		private final transient ClientResponse response;

		private final transient BodyPrefix prefix;

		PrefixedAnswer(ProviderResponse answer, ClientResponse response, BodyPrefix prefix) {
			super(answer);
			this.response = response;
			this.prefix = prefix;
		}

	}

}
