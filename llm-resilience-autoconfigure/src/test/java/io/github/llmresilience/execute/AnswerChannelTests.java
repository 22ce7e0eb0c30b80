package io.github.llmresilience.execute;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.test.FakeProvider.Reply;
import io.github.llmresilience.test.FakeProvider.Stream;
import io.github.llmresilience.usage.Usage;
import io.github.llmresilience.web.LlmResilienceClientHttpRequestInterceptor;
import io.github.llmresilience.web.LlmResilienceExchangeFilterFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a successful answer tells beyond its content (the tokens used, the provider's
 * headers) reaches the engine and its observers from each way of calling: a call function
 * that hands it over, the WebClient filter, the RestClient interceptor, a stream whose
 * events carry running totals.
 */
class AnswerChannelTests {

	private static final String ANSWER = "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,"
			+ "\"message\":{\"role\":\"assistant\",\"content\":\"Hello\"},\"finish_reason\":\"stop\"}],"
			+ "\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":34,\"total_tokens\":46}}";

	private static final Map<String, String> HEADERS = Map.of("content-type", "application/json",
			"openai-processing-ms", "321", "x-ratelimit-limit-requests", "500");

	private final EngineHarness h = new EngineHarness();

	private final List<String> told = new CopyOnWriteArrayList<>();

	private final CallObserver observer = new CallObserver() {
		@Override
		public void onAnswer(String chain, Target target, Answer answer) {
			AnswerChannelTests.this.told.add(chain + " " + target.name() + " " + answer.usage() + " "
					+ answer.header("OpenAI-Processing-Ms") + " " + answer.header("x-ratelimit-limit-requests"));
		}
	};

	@AfterEach
	void close() {
		this.h.close();
	}

	@Test
	void aCallFunctionHandsTheAnswerOver() {
		this.h.provider.always("primary", Reply.json(200, HEADERS, ANSWER));
		this.h.build((builder) -> builder.observer(this.observer), "primary");

		String body = this.h.time.await(this.h.resilience.execute("chat", this.h::handingOver), this.h.inFlight::get);

		assertThat(body).isEqualTo(ANSWER);
		assertThat(this.told).containsExactly("chat primary Usage[inputTokens=12, outputTokens=34] 321 500");
	}

	@Test
	void nothingHandedOverTellsNothing() {
		this.h.provider.always("primary", Reply.json(200, HEADERS, ANSWER));
		this.h.build((builder) -> builder.observer(this.observer), "primary");

		assertThat(this.h.chat()).isEqualTo(ANSWER);
		assertThat(this.told).isEmpty();
	}

	@Test
	void theWebClientFilterHandsTheAnswerOver() {
		this.h.provider.always("primary", Reply.json(200, HEADERS, ANSWER));
		this.h.build((builder) -> builder.observer(this.observer), "primary");
		WebClient client = WebClient.builder()
			.baseUrl(this.h.provider.baseUrl("primary"))
			.filter(new LlmResilienceExchangeFilterFunction(this.h.resilience, "primary"))
			.build();

		String body = client.post()
			.uri("/v1/chat/completions")
			.bodyValue("{}")
			.retrieve()
			.bodyToMono(String.class)
			.block(Duration.ofSeconds(10));

		assertThat(body).isEqualTo(ANSWER);
		assertThat(this.told).containsExactly("primary primary Usage[inputTokens=12, outputTokens=34] 321 500");
	}

	@Test
	void theRestClientInterceptorHandsTheAnswerOver() {
		this.h.provider.always("primary", Reply.json(200, HEADERS, ANSWER));
		this.h.build((builder) -> builder.observer(this.observer), "primary");
		RestClient client = RestClient.builder()
			.requestFactory(new JdkClientHttpRequestFactory())
			.baseUrl(this.h.provider.baseUrl("primary"))
			.requestInterceptor(new LlmResilienceClientHttpRequestInterceptor(this.h.resilience, "primary"))
			.build();

		String body = CompletableFuture
			.supplyAsync(() -> client.post().uri("/v1/chat/completions").body("{}").retrieve().body(String.class))
			.join();

		assertThat(body).isEqualTo(ANSWER);
		assertThat(this.told).containsExactly("primary primary Usage[inputTokens=12, outputTokens=34] 321 500");
	}

	@Test
	void aStreamsEventsCombineIntoOneUsage() {
		this.h.provider.always("primary", Reply.stream(new Stream().send("""
				event: message_start
				data: {"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":25,"output_tokens":1}}}

				""").send("""
				event: content_block_delta
				data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}

				""").send("""
				event: message_delta
				data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":15}}

				""").send("""
				event: message_stop
				data: {"type":"message_stop"}

				""").end()));
		this.h.build((builder) -> builder.observer(this.observer), "primary");

		List<String> events = this.h.resilience.stream("chat",
				(attempt) -> this.h.webClient.post()
					.uri(attempt.target().baseUrl() + "/v1/messages")
					.accept(MediaType.TEXT_EVENT_STREAM)
					.bodyValue("{}")
					.retrieve()
					.bodyToFlux(new ParameterizedTypeReference<ServerSentEvent<String>>() {
					})
					.map((event) -> {
						attempt.answered(ProviderResponse.streamEvent(event.event(), event.data()));
						return event.event();
					}))
			.collectList()
			.block(Duration.ofSeconds(10));

		assertThat(events).containsExactly("message_start", "content_block_delta", "message_delta", "message_stop");
		assertThat(this.told).containsExactly("chat primary Usage[inputTokens=25, outputTokens=15] null null");
	}

	@Test
	void usageTheCallerKnowsIsTakenAsItIs() {
		this.h.provider.always("primary", Reply.json(200, HEADERS, FakeProviderBodies.OK));
		this.h.build((builder) -> builder.observer(this.observer), "primary");

		String answer = CompletableFuture.supplyAsync(() -> this.h.resilience.call("chat", (attempt) -> {
			attempt.usage(new Usage(7, 8));
			return "parsed";
		})).join();

		assertThat(answer).isEqualTo("parsed");
		assertThat(this.told).containsExactly("chat primary Usage[inputTokens=7, outputTokens=8] null null");
	}

	@Test
	void anObserverThatThrowsOnTheAnswerChangesNothing() {
		this.h.provider.always("primary", Reply.json(200, HEADERS, ANSWER));
		this.h.build((builder) -> builder.observer(new CallObserver() {
			@Override
			public void onAnswer(String chain, Target target, Answer answer) {
				throw new IllegalStateException("observer bug");
			}
		}), "primary");

		String body = this.h.time.await(this.h.resilience.execute("chat", (attempt) -> Mono.fromCallable(() -> {
			attempt.answered(Map.of("openai-processing-ms", List.of("5")), ANSWER);
			return "answered";
		})), this.h.inFlight::get);

		assertThat(body).isEqualTo("answered");
		assertThat(this.h.resilience.state().target("primary").breaker().successfulCalls()).isEqualTo(1);
	}

	@Test
	void garbageHandedOverIsNoUsage() {
		this.h.build((builder) -> builder.observer(this.observer), "primary");

		Flux<String> stream = this.h.resilience.stream("chat", (attempt) -> Flux.just("{\"usage\":", "<html>", "")
			.doOnNext((data) -> attempt.answered(ProviderResponse.streamEvent(null, data))));

		assertThat(stream.collectList().block(Duration.ofSeconds(10))).hasSize(3);
		assertThat(this.told).isEmpty();
	}

}
