package io.github.llmresilience.web.stream;

import java.time.Duration;

import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.vendor.BuiltInClassifiers;
import io.github.llmresilience.extract.ProviderAnswerException;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

import org.springframework.http.codec.ServerSentEvent;

import static org.assertj.core.api.Assertions.assertThat;

class StreamHelpersTests {

	@Test
	void openAiChunksSkipRoleOnlyPiecesAndEndAtDone() {
		Flux<ServerSentEvent<String>> events = Flux.just(data("{\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}"),
				data("{\"choices\":[{\"delta\":{\"content\":\"Hel\"},\"finish_reason\":null}]}"),
				data("{\"choices\":[{\"delta\":{\"content\":\"lo\"},\"finish_reason\":null}]}"),
				data("{\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}"), data("[DONE]"),
				data("{\"choices\":[{\"delta\":{\"content\":\"after done\"}}]}"));
		StepVerifier.create(OpenAiChatStream.chunks(events))
			.expectNext(new StreamChunk("Hel", null), new StreamChunk("lo", null), new StreamChunk("", "stop"))
			.verifyComplete();
	}

	@Test
	void openAiErrorChunkEndsTheStreamWithAClassifiableAnswer() {
		Flux<ServerSentEvent<String>> events = Flux.just(data("{\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}"),
				data("{\"error\":{\"message\":\"The server had an error\",\"type\":\"server_error\"}}"));
		StepVerifier.create(OpenAiChatStream.chunks(events))
			.expectNext(new StreamChunk("Hel", null))
			.expectErrorSatisfies((error) -> assertThat(outcome("openai", error)).isEqualTo(Outcome.AVAILABILITY))
			.verify(Duration.ofSeconds(5));
	}

	@Test
	void openAiContentFilterFinishIsARefusal() {
		Flux<ServerSentEvent<String>> events = Flux
			.just(data("{\"choices\":[{\"delta\":{},\"finish_reason\":\"content_filter\"}]}"));
		StepVerifier.create(OpenAiChatStream.chunks(events))
			.expectErrorSatisfies(
					(error) -> assertThat(outcome("azure-openai", error)).isEqualTo(Outcome.CONTENT_FILTER))
			.verify(Duration.ofSeconds(5));
	}

	@Test
	void openAiResponsesApiFailedEventIsClassified() {
		Flux<ServerSentEvent<String>> events = Flux.just(ServerSentEvent.<String>builder()
			.event("response.failed")
			.data("{\"type\":\"response.failed\",\"response\":{\"error\":{\"code\":\"server_error\"}}}")
			.build());
		StepVerifier.create(OpenAiChatStream.chunks(events))
			.expectErrorSatisfies((error) -> assertThat(outcome("openai", error)).isEqualTo(Outcome.AVAILABILITY))
			.verify(Duration.ofSeconds(5));
	}

	@Test
	void anthropicChunksCarryTextDeltasAndTheStopReason() {
		Flux<ServerSentEvent<String>> events = Flux.just(event("message_start", "{\"type\":\"message_start\"}"),
				event("content_block_start", "{\"type\":\"content_block_start\"}"), event("ping", "{}"),
				event("content_block_delta", "{\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}"),
				event("message_delta", "{\"delta\":{\"stop_reason\":\"end_turn\"}}"),
				event("message_stop", "{\"type\":\"message_stop\"}"));
		StepVerifier.create(AnthropicMessageStream.chunks(events))
			.expectNext(new StreamChunk("Hi", null), new StreamChunk("", "end_turn"))
			.verifyComplete();
	}

	@Test
	void anthropicOverloadedEventIsAvailability() {
		Flux<ServerSentEvent<String>> events = Flux.just(event("error",
				"{\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\", \"message\": \"Overloaded\"}}"));
		StepVerifier.create(AnthropicMessageStream.chunks(events))
			.expectErrorSatisfies((error) -> assertThat(outcome("anthropic", error)).isEqualTo(Outcome.AVAILABILITY))
			.verify(Duration.ofSeconds(5));
	}

	@Test
	void anthropicRefusalStopIsAContentFilter() {
		Flux<ServerSentEvent<String>> events = Flux
			.just(event("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"refusal\"}}"));
		StepVerifier.create(AnthropicMessageStream.chunks(events))
			.expectErrorSatisfies((error) -> assertThat(outcome("anthropic", error)).isEqualTo(Outcome.CONTENT_FILTER))
			.verify(Duration.ofSeconds(5));
	}

	@Test
	void garbageEventsAreSkippedNotThrown() {
		Flux<ServerSentEvent<String>> events = Flux.just(data("{not json"), data(""),
				ServerSentEvent.<String>builder().comment("keep-alive").build(), data("[DONE]"));
		StepVerifier.create(OpenAiChatStream.chunks(events)).verifyComplete();
		StepVerifier
			.create(AnthropicMessageStream
				.chunks(Flux.just(event("content_block_delta", "{\"delta\":"), event("message_stop", ""))))
			.verifyComplete();
	}

	private static Outcome outcome(String provider, Throwable error) {
		assertThat(error).isInstanceOf(ProviderAnswerException.class);
		return BuiltInClassifiers.forProvider(provider)
			.classify(((ProviderAnswerException) error).response())
			.outcome();
	}

	private static ServerSentEvent<String> data(String data) {
		return ServerSentEvent.<String>builder().data(data).build();
	}

	private static ServerSentEvent<String> event(String name, String data) {
		return ServerSentEvent.<String>builder().event(name).data(data).build();
	}

}
