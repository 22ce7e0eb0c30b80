package io.github.llmresilience.web;

import io.github.llmresilience.execute.CallOptions;
import io.github.llmresilience.execute.LlmRejectedException;
import io.github.llmresilience.execute.LlmResilience;
import reactor.core.publisher.Mono;

import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import org.springframework.web.reactive.function.client.WebClientResponseException;

/**
 * Protects every exchange of a {@code WebClient} with one target: its gate, account and
 * breaker, classification of error answers, and same-target retries. For users who do not
 * need chains:
 *
 * <pre class="code">
 * WebClient openai = WebClient.builder()
 *     .baseUrl("https://api.openai.com")
 *     .filter(new LlmResilienceExchangeFilterFunction(resilience, "openai-primary"))
 *     .build();
 * </pre>
 *
 * A rejected request (400, refusal) comes back as the provider's own response, so
 * {@code retrieve()} raises its usual exception; an unusable target raises
 * {@code LlmUnavailableException}. The attempt timeout covers the exchange up to the
 * response headers. Request bodies must be repeatable for retries ({@code bodyValue} is).
 */
public final class LlmResilienceExchangeFilterFunction implements ExchangeFilterFunction {

	private final LlmResilience resilience;

	private final String target;

	public LlmResilienceExchangeFilterFunction(LlmResilience resilience, String target) {
		this.resilience = resilience;
		this.target = target;
		resilience.registry().target(target);
	}

	@Override
	public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
		return this.resilience
			.executeOnTarget(this.target, CallOptions.NONE,
					(attempt) -> next.exchange(request).flatMap(LlmResilienceExchangeFilterFunction::errorsAsExceptions))
			.onErrorResume(LlmRejectedException.class, (rejected) -> (rejected
				.getCause() instanceof WebClientResponseException response) ? Mono.just(replay(response))
						: Mono.error(rejected));
	}

	private static Mono<ClientResponse> errorsAsExceptions(ClientResponse response) {
		return response.statusCode().isError() ? response.createException().flatMap(Mono::error) : Mono.just(response);
	}

	private static ClientResponse replay(WebClientResponseException response) {
		return ClientResponse.create(response.getStatusCode())
			.headers((headers) -> headers.addAll(response.getHeaders()))
			.body(response.getResponseBodyAsString())
			.build();
	}

}
