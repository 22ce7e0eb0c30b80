package io.github.llmresilience.execute;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.llmresilience.state.TargetState.BreakerState;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import io.github.llmresilience.web.LlmResilienceClientHttpRequestInterceptor;
import io.github.llmresilience.web.LlmResilienceExchangeFilterFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientResponseException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The WebClient filter and the RestClient interceptor, which protect one target without a
 * chain.
 */
class WebIntegrationTests {

	private static final String CONTENT_FILTER = "{\"id\":\"chatcmpl-3\",\"object\":\"chat.completion\",\"choices\":[{"
			+ "\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":null},\"finish_reason\":\"content_filter\"}]}";

	private static final String ANTHROPIC_REFUSAL = "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\","
			+ "\"model\":\"claude-sonnet-4-5\",\"content\":[],\"stop_reason\":\"refusal\",\"stop_sequence\":null}";

	private static final String FIRST_CHUNK = "{\"id\":\"chatcmpl-5\",\"object\":\"chat.completion.chunk\",\"choices\":[{"
			+ "\"index\":0,\"delta\":{\"content\":\"Hel\"},\"finish_reason\":null}]}";

	private final EngineHarness h = new EngineHarness();

	@AfterEach
	void close() {
		this.h.close();
	}

	@Test
	void webClientFilterRetriesAnOutageOnTheSameTarget() {
		this.h.provider.script("primary",
				(n) -> (n <= 2) ? Reply.json(503, FakeProviderBodies.SERVER_ERROR) : Reply.ok(FakeProviderBodies.OK));
		this.h.build((builder) -> {
		}, "primary");
		WebClient client = webClient();

		String answer = this.h.time.await(
				client.post().uri("/v1/chat/completions").bodyValue("{}").retrieve().bodyToMono(String.class),
				this.h.inFlight::get);
		assertThat(answer).isEqualTo(FakeProviderBodies.OK);
		assertThat(this.h.provider.requests("primary")).isEqualTo(3);
	}

	@Test
	void webClientFilterHandsABadRequestBackAsTheProvidersOwnAnswer() {
		this.h.provider.always("primary", Reply.json(400, EngineHarness.fixture("openai-400-context-length-exceeded")));
		this.h.build((builder) -> {
		}, "primary");

		assertThatExceptionOfType(WebClientResponseException.BadRequest.class)
			.isThrownBy(() -> webClient().post()
				.uri("/v1/chat/completions")
				.bodyValue("{}")
				.retrieve()
				.bodyToMono(String.class)
				.block(Duration.ofSeconds(10)))
			.satisfies((ex) -> assertThat(ex.getResponseBodyAsString()).contains("context_length_exceeded"));
		assertThat(this.h.provider.requests("primary")).isEqualTo(1);
	}

	@Test
	void restClientInterceptorGatesARateLimitedTarget() {
		this.h.provider.always("primary",
				Reply.json(429, Map.of("retry-after", "2"), EngineHarness.fixture("openai-429-tpm-rate-limit")));
		// Calls that may not wait: the gate's fail-fast (waiting is ReleaseWaitTests').
		this.h.build((builder) -> builder.pools(ReleaseWaitTests.noWait()), "primary");
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
		this.h.provider.script("primary",
				(n) -> (n == 1) ? Reply.json(502, "<html>Bad gateway</html>") : Reply.ok(FakeProviderBodies.OK));
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
		this.h.provider.always("primary", Reply.json(400, EngineHarness.fixture("openai-400-context-length-exceeded")));
		this.h.build((builder) -> {
		}, "primary");

		assertThatExceptionOfType(HttpClientErrorException.BadRequest.class)
			.isThrownBy(() -> restClient().post().uri("/v1/chat/completions").body("{}").retrieve().body(String.class))
			.satisfies((ex) -> assertThat(ex.getResponseBodyAsString()).contains("context_length_exceeded"));
		assertThat(this.h.provider.requests("primary")).isEqualTo(1);
	}

	// 2xx answers: classified when JSON, handed on whole; streams untouched ------------

	@Test
	void webClientFilterRetriesAnErrorEnvelopeInA200() {
		this.h.provider.script("primary",
				(n) -> (n == 1) ? Reply.ok(FakeProvider.OPENAI_503) : Reply.ok(FakeProviderBodies.OK));
		this.h.build((builder) -> {
		}, "primary");

		String answer = this.h.time.await(
				webClient().post().uri("/v1/chat/completions").bodyValue("{}").retrieve().bodyToMono(String.class),
				this.h.inFlight::get);
		assertThat(answer).isEqualTo(FakeProviderBodies.OK);
		assertThat(this.h.provider.requests("primary")).isEqualTo(2);
		assertBreakerRecorded(1, 1);
	}

	@Test
	void webClientFilterHandsAContentFilterRefusalBackUnchanged() {
		this.h.provider.always("primary", Reply.ok(CONTENT_FILTER));
		this.h.build((builder) -> {
		}, "primary");

		String answer = webClient().post()
			.uri("/v1/chat/completions")
			.bodyValue("{}")
			.retrieve()
			.bodyToMono(String.class)
			.block(Duration.ofSeconds(10));
		assertThat(answer).isEqualTo(CONTENT_FILTER);
		assertThat(this.h.provider.requests("primary")).isEqualTo(1);
		assertBreakerRecorded(0, 0);
	}

	@Test
	void webClientFilterHandsAnOrdinary200On() {
		this.h.provider.always("primary", Reply.ok(FakeProviderBodies.OK));
		this.h.build((builder) -> {
		}, "primary");

		String answer = webClient().post()
			.uri("/v1/chat/completions")
			.bodyValue("{}")
			.retrieve()
			.bodyToMono(String.class)
			.block(Duration.ofSeconds(10));
		assertThat(answer).isEqualTo(FakeProviderBodies.OK);
		assertThat(this.h.provider.requests("primary")).isEqualTo(1);
		assertBreakerRecorded(0, 1);
	}

	@Test
	void webClientFilterHandsA1MiBAnswerOnWhole() {
		String large = largeAnswer("stop");
		this.h.provider.always("primary", Reply.ok(large));
		this.h.build((builder) -> {
		}, "primary");

		byte[] answer = webClient().post()
			.uri("/v1/chat/completions")
			.bodyValue("{}")
			.retrieve()
			.bodyToMono(byte[].class)
			.block(Duration.ofSeconds(10));
		assertThat(answer).isEqualTo(large.getBytes(StandardCharsets.UTF_8));
		assertThat(this.h.provider.requests("primary")).isEqualTo(1);
		assertBreakerRecorded(0, 1);
	}

	@Test
	void webClientFilterHandsA1MiBRefusalBackWhole() {
		String large = largeAnswer("content_filter");
		this.h.provider.always("primary", Reply.ok(large));
		this.h.build((builder) -> {
		}, "primary");

		byte[] answer = webClient().post()
			.uri("/v1/chat/completions")
			.bodyValue("{}")
			.retrieve()
			.bodyToMono(byte[].class)
			.block(Duration.ofSeconds(10));
		assertThat(answer).isEqualTo(large.getBytes(StandardCharsets.UTF_8));
		assertThat(this.h.provider.requests("primary")).isEqualTo(1);
		assertBreakerRecorded(0, 0);
	}

	@Test
	void webClientFilterPassesAnEventStreamThroughUnbuffered() {
		FakeProvider.Stream stream = new FakeProvider.Stream().send("data: " + FIRST_CHUNK + "\n\n");
		this.h.provider.always("primary", Reply.stream(stream));
		this.h.build((builder) -> {
		}, "primary");

		// The server has not ended the stream: the first event arrives on its own.
		String first = webClient().post()
			.uri("/v1/chat/completions")
			.bodyValue("{}")
			.retrieve()
			.bodyToFlux(String.class)
			.blockFirst(Duration.ofSeconds(10));
		stream.end();
		assertThat(first).isEqualTo(FIRST_CHUNK);
		assertThat(this.h.provider.requests("primary")).isEqualTo(1);
	}

	@Test
	void restClientInterceptorRetriesAnErrorEnvelopeInA200() {
		this.h.provider.script("primary",
				(n) -> (n == 1) ? Reply.ok(FakeProvider.OPENAI_503) : Reply.ok(FakeProviderBodies.OK));
		this.h.build((builder) -> {
		}, "primary");
		RestClient client = restClient();

		CompletableFuture<String> answer = CompletableFuture
			.supplyAsync(() -> client.post().uri("/v1/chat/completions").body("{}").retrieve().body(String.class));
		assertThat(this.h.time.await(answer, this.h.inFlight::get, Duration.ofSeconds(10)))
			.isEqualTo(FakeProviderBodies.OK);
		assertThat(this.h.provider.requests("primary")).isEqualTo(2);
		assertBreakerRecorded(1, 1);
	}

	@Test
	void restClientInterceptorHandsAContentFilterRefusalBackUnchanged() {
		this.h.provider.always("primary", Reply.ok(CONTENT_FILTER));
		this.h.build((builder) -> {
		}, "primary");

		String answer = restClient().post().uri("/v1/chat/completions").body("{}").retrieve().body(String.class);
		assertThat(answer).isEqualTo(CONTENT_FILTER);
		assertThat(this.h.provider.requests("primary")).isEqualTo(1);
		assertBreakerRecorded(0, 0);
	}

	@Test
	void restClientInterceptorHandsAnAnthropicRefusalBackUnchanged() {
		this.h.provider.always("primary", Reply.ok(ANTHROPIC_REFUSAL));
		this.h.build(List.of(new Target("primary", "anthropic", "primary", "claude-sonnet-4-5", "region-primary",
				URI.create(this.h.provider.baseUrl("primary")), null)), (builder) -> {
				});

		String answer = restClient().post().uri("/v1/messages").body("{}").retrieve().body(String.class);
		assertThat(answer).isEqualTo(ANTHROPIC_REFUSAL);
		assertThat(this.h.provider.requests("primary")).isEqualTo(1);
		assertBreakerRecorded(0, 0);
	}

	@Test
	void restClientInterceptorHandsAnOrdinary200On() {
		this.h.provider.always("primary", Reply.ok(FakeProviderBodies.OK));
		this.h.build((builder) -> {
		}, "primary");

		String answer = restClient().post().uri("/v1/chat/completions").body("{}").retrieve().body(String.class);
		assertThat(answer).isEqualTo(FakeProviderBodies.OK);
		assertThat(this.h.provider.requests("primary")).isEqualTo(1);
		assertBreakerRecorded(0, 1);
	}

	@Test
	void restClientInterceptorHandsA1MiBAnswerOnWhole() {
		String large = largeAnswer("stop");
		this.h.provider.always("primary", Reply.ok(large));
		this.h.build((builder) -> {
		}, "primary");

		byte[] answer = restClient().post().uri("/v1/chat/completions").body("{}").retrieve().body(byte[].class);
		assertThat(answer).isEqualTo(large.getBytes(StandardCharsets.UTF_8));
		assertThat(this.h.provider.requests("primary")).isEqualTo(1);
		assertBreakerRecorded(0, 1);
	}

	@Test
	void restClientInterceptorHandsA1MiBRefusalBackWhole() {
		String large = largeAnswer("content_filter");
		this.h.provider.always("primary", Reply.ok(large));
		this.h.build((builder) -> {
		}, "primary");

		byte[] answer = restClient().post().uri("/v1/chat/completions").body("{}").retrieve().body(byte[].class);
		assertThat(answer).isEqualTo(large.getBytes(StandardCharsets.UTF_8));
		assertThat(this.h.provider.requests("primary")).isEqualTo(1);
		assertBreakerRecorded(0, 0);
	}

	@Test
	void restClientInterceptorPassesAnEventStreamThroughUnbuffered() throws Exception {
		FakeProvider.Stream stream = new FakeProvider.Stream().send("data: " + FIRST_CHUNK + "\n\n");
		this.h.provider.always("primary", Reply.stream(stream));
		this.h.build((builder) -> {
		}, "primary");
		RestClient client = restClient();

		// The server has not ended the stream: the first event arrives on its own. The
		// response stays open (the JDK client's close drains the body) until it has
		// ended.
		CompletableFuture<FirstLine> first = CompletableFuture.supplyAsync(() -> client.post()
			.uri("/v1/chat/completions")
			.body("{}")
			.exchange((request, response) -> new FirstLine(
					new BufferedReader(new InputStreamReader(response.getBody(), StandardCharsets.UTF_8)).readLine(),
					response), false));
		try {
			FirstLine line = first.get(10, TimeUnit.SECONDS);
			stream.end();
			line.response().close();
			assertThat(line.line()).isEqualTo("data: " + FIRST_CHUNK);
		}
		finally {
			stream.end();
		}
		assertThat(this.h.provider.requests("primary")).isEqualTo(1);
	}

	private record FirstLine(String line, ClientHttpResponse response) {
	}

	private void assertBreakerRecorded(int failures, int successes) {
		BreakerState metrics = this.h.resilience.state().target("primary").breaker();
		assertThat(metrics.failedCalls()).as("failures recorded").isEqualTo(failures);
		assertThat(metrics.successfulCalls()).as("successes recorded").isEqualTo(successes);
	}

	/**
	 * A 1 MiB chat completion, four times what is classified, with multi-byte characters
	 * across every buffer boundary; the finish reason comes first, within what is read.
	 */
	private static String largeAnswer(String finishReason) {
		return "{\"id\":\"chatcmpl-4\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,"
				+ "\"finish_reason\":\"" + finishReason + "\",\"message\":{\"role\":\"assistant\",\"content\":\""
				+ "Grüße, 世界 ".repeat(65_536) + "\"}}]}";
	}

	/**
	 * The resilience filter outermost; inside it, a filter that counts an exchange in
	 * flight until its body has been read to the end (or given up), error answers' bodies
	 * being read here, so that virtual time never moves while a real answer is still on
	 * its way.
	 */
	private WebClient webClient() {
		return WebClient.builder()
			.baseUrl(this.h.provider.baseUrl("primary"))
			// Room for the 1 MiB answers: the codecs' default limit is the classifier's.
			.codecs((codecs) -> codecs.defaultCodecs().maxInMemorySize(4 * 1024 * 1024))
			.filter(new LlmResilienceExchangeFilterFunction(this.h.resilience, "primary"))
			.filter((request, next) -> Mono.defer(() -> {
				Runnable done = inFlight();
				return next.exchange(request)
					.map((response) -> response.mutate().body((body) -> body.doFinally((signal) -> done.run())).build())
					.doOnError((error) -> done.run())
					.doOnCancel(done)
					.flatMap(WebIntegrationTests::buffered);
			}))
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

	/**
	 * Like {@link #webClient()}: an exchange is in flight until its response is closed,
	 * which RestClient does once it has read the body.
	 */
	private RestClient restClient() {
		return RestClient.builder()
			.requestFactory(new JdkClientHttpRequestFactory())
			.baseUrl(this.h.provider.baseUrl("primary"))
			.requestInterceptor(new LlmResilienceClientHttpRequestInterceptor(this.h.resilience, "primary"))
			.requestInterceptor((request, body, execution) -> {
				Runnable done = inFlight();
				try {
					return new ClosingResponse(execution.execute(request, body), done);
				}
				catch (IOException | RuntimeException ex) {
					done.run();
					throw ex;
				}
			})
			.build();
	}

	/** Count one exchange in flight; the action returned ends it, once. */
	private Runnable inFlight() {
		this.h.inFlight.incrementAndGet();
		AtomicBoolean ended = new AtomicBoolean();
		return () -> {
			if (ended.compareAndSet(false, true)) {
				this.h.inFlight.decrementAndGet();
			}
		};
	}

	/** A response that reports its closing. */
	private record ClosingResponse(ClientHttpResponse response, Runnable onClose) implements ClientHttpResponse {

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
			return this.response.getBody();
		}

		@Override
		public void close() {
			try {
				this.response.close();
			}
			finally {
				this.onClose.run();
			}
		}

	}

}
