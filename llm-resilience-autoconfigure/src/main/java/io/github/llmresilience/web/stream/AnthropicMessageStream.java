package io.github.llmresilience.web.stream;

import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.internal.JsonBody;
import io.github.llmresilience.extract.ProviderAnswerException;
import reactor.core.publisher.Flux;

import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.codec.ServerSentEvent;

/**
 * Reads an Anthropic messages stream as text chunks. An {@code event: error} inside the
 * 200 stream (such as {@code overloaded_error}) and a refusal
 * ({@code stop_reason: refusal}) end the Flux with a {@link ProviderAnswerException},
 * which the executor classifies like any answer:
 *
 * <pre class="code">
 * resilience.stream("chat", attempt -&gt; AnthropicMessageStream.chunks(webClient.post()
 *     .uri(attempt.target().baseUrl() + "/v1/messages")
 *     .bodyValue(requestWithStreamTrue)
 *     .retrieve()
 *     .bodyToFlux(AnthropicMessageStream.EVENTS)));
 * </pre>
 */
public final class AnthropicMessageStream {

	/**
	 * The type to read an SSE body as: {@code bodyToFlux(AnthropicMessageStream.EVENTS)}.
	 */
	public static final ParameterizedTypeReference<ServerSentEvent<String>> EVENTS = new ParameterizedTypeReference<>() {
	};

	private AnthropicMessageStream() {
	}

	/**
	 * The text chunks of a messages stream: {@code text_delta}s as they come, the stop
	 * reason on a last chunk; the stream ends at {@code message_stop}.
	 */
	public static Flux<StreamChunk> chunks(Flux<ServerSentEvent<String>> events) {
		return events.<StreamChunk>handle((event, sink) -> {
			String data = (event.data() != null) ? event.data() : "";
			Object json = JsonBody.parse(data);
			String type = (event.event() != null) ? event.event() : JsonBody.text(json, "type");
			if (type == null) {
				return;
			}
			switch (type) {
				case "error" -> sink.error(new ProviderAnswerException(ProviderResponse.streamEvent("error", data)));
				case "content_block_delta" -> {
					String text = JsonBody.text(json, "delta", "text");
					if (text != null && !text.isEmpty()) {
						sink.next(new StreamChunk(text, null));
					}
				}
				case "message_delta" -> {
					String stop = JsonBody.text(json, "delta", "stop_reason");
					if ("refusal".equals(stop)) {
						sink.error(new ProviderAnswerException(ProviderResponse.streamEvent(type, data)));
					}
					else if (stop != null) {
						sink.next(new StreamChunk("", stop));
					}
				}
				case "message_stop" -> sink.complete();
				default -> {
					// message_start, content_block_start/stop, ping: nothing to hand on.
				}
			}
		});
	}

}
