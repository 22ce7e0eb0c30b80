package io.github.llmresilience.execute;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import io.github.llmresilience.test.FakeProvider.Reply;
import io.github.llmresilience.web.LlmResilienceClientHttpRequestInterceptor;
import io.github.llmresilience.web.LlmResilienceExchangeFilterFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientResponseException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The WebClient filter and the RestClient interceptor, which protect one target without
 * a chain.
 */
class WebIntegrationTest {

	private final EngineHarness h = new EngineHarness();

	@AfterEach
	void close() {
		this.h.close();
	}

	@Test
	void webClientFilterRetriesAnOutageOnTheSameTarget() {
		this.h.provider.script("primary", (n) -> (n <= 2) ? Reply.json(503, FakeProviderBodies.SERVER_ERROR)
				: Reply.ok(FakeProviderBodies.OK));
		this.h.build((builder) -> {
		}, "primary");
		WebClient client = webClient();

		String answer = this.h.time.await(client.post().uri("/v1/chat/completions").bodyValue("{}").retrieve()
			.bodyToMono(String.class), this.h.inFlight::get);
		assertThat(answer).isEqualTo(FakeProviderBodies.OK);
		assertThat(this.h.provider.requests("primary")).isEqualTo(3);
	}

	@Test
	void webClientFilterHandsABadRequestBackAsTheProvidersOwnAnswer() {
		this.h.provider.always("primary",
				Reply.json(400, EngineHarness.fixture("openai-400-context-length-exceeded")));
		this.h.build((builder) -> {
		}, "primary");

		assertThatExceptionOfType(WebClientResponseException.BadRequest.class)
			.isThrownBy(() -> webClient().post().uri("/v1/chat/completions").bodyValue("{}").retrieve()
				.bodyToMono(String.class).block(Duration.ofSeconds(10)))
			.satisfies((ex) -> assertThat(ex.getResponseBodyAsString()).contains("context_length_exceeded"));
		assertThat(this.h.provider.requests("primary")).isEqualTo(1);
	}

	@Test
	void restClientInterceptorGatesARateLimitedTarget() {
		this.h.provider.always("primary",
				Reply.json(429, Map.of("retry-after", "2"), EngineHarness.fixture("openai-429-tpm-rate-limit")));
		this.h.build((builder) -> {
		}, "primary");
		RestClient client = restClient();

		assertThatExceptionOfType(LlmUnavailableException.class)
			.isThrownBy(() -> client.post().uri("/v1/chat/completions").body("{}").retrieve().body(String.class))
			.satisfies((ex) -> assertThat(ex.allThrottled()).isTrue());
		assertThatExceptionOfType(LlmUnavailableException.class)
			.isThrownBy(() -> client.post().uri("/v1/chat/completions").body("{}").retrieve().body(String.class))
			.satisfies((ex) -> assertThat(ex.steps()).extracting(ChainStep::skipped)
				.containsExactly(ChainStep.Skip.SCOPE_GATED));
		assertThat(this.h.provider.requests("primary")).isEqualTo(1);
	}

	@Test
	void restClientInterceptorRetriesAndThenAnswers() {
		this.h.provider.script("primary", (n) -> (n == 1) ? Reply.json(502, "<html>Bad gateway</html>")
				: Reply.ok(FakeProviderBodies.OK));
		this.h.build((builder) -> {
		}, "primary");
		RestClient client = restClient();

		CompletableFuture<String> answer = CompletableFuture
			.supplyAsync(() -> client.post().uri("/v1/chat/completions").body("{}").retrieve().body(String.class));
		assertThat(this.h.time.await(answer, this.h.inFlight::get, Duration.ofSeconds(10)))
			.isEqualTo(FakeProviderBodies.OK);
		assertThat(this.h.provider.requests("primary")).isEqualTo(2);
	}

	@Test
	void restClientInterceptorHandsABadRequestBackAsTheProvidersOwnAnswer() {
		this.h.provider.always("primary",
				Reply.json(400, EngineHarness.fixture("openai-400-context-length-exceeded")));
		this.h.build((builder) -> {
		}, "primary");

		assertThatExceptionOfType(HttpClientErrorException.BadRequest.class)
			.isThrownBy(() -> restClient().post().uri("/v1/chat/completions").body("{}").retrieve().body(String.class))
			.satisfies((ex) -> assertThat(ex.getResponseBodyAsString()).contains("context_length_exceeded"));
		assertThat(this.h.provider.requests("primary")).isEqualTo(1);
	}

	/**
	 * The resilience filter outermost; inside it, a filter that counts exchanges in flight
	 * until an error answer's body is read too (buffered here), so that virtual time never
	 * moves while a real answer is still on its way.
	 */
	private WebClient webClient() {
		return WebClient.builder()
			.baseUrl(this.h.provider.baseUrl("primary"))
			.filter(new LlmResilienceExchangeFilterFunction(this.h.resilience, "primary"))
			.filter((request, next) -> Mono.defer(() -> {
				this.h.inFlight.incrementAndGet();
				return next.exchange(request).flatMap(WebIntegrationTest::buffered);
			}).doFinally((signal) -> this.h.inFlight.decrementAndGet()))
			.build();
	}

	private static Mono<ClientResponse> buffered(ClientResponse response) {
		if (!response.statusCode().isError()) {
			return Mono.just(response);
		}
		return response.bodyToMono(String.class)
			.defaultIfEmpty("")
			.map((body) -> ClientResponse.create(response.statusCode())
				.headers((headers) -> headers.addAll(response.headers().asHttpHeaders()))
				.body(body)
				.build());
	}

	private RestClient restClient() {
		return RestClient.builder()
			.requestFactory(new JdkClientHttpRequestFactory())
			.baseUrl(this.h.provider.baseUrl("primary"))
			.requestInterceptor(new LlmResilienceClientHttpRequestInterceptor(this.h.resilience, "primary"))
			.requestInterceptor((request, body, execution) -> {
				this.h.inFlight.incrementAndGet();
				try {
					return execution.execute(request, body);
				}
				finally {
					this.h.inFlight.decrementAndGet();
				}
			})
			.build();
	}

}
