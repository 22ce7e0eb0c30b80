package io.github.llmresilience.web.stream;

import java.util.Objects;

import io.github.llmresilience.classify.vendor.StreamDecoder;
import io.github.llmresilience.classify.vendor.StreamPiece;
import io.github.llmresilience.classify.vendor.anthropic.Anthropic;
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

	/** The vendor's decoder, in its folder; this class adapts it to Reactor. */
	private static final StreamDecoder DECODER = Objects.requireNonNull(Anthropic.ANTHROPIC.streamDecoder());

	private AnthropicMessageStream() {
	}

	/**
	 * The text chunks of a messages stream: {@code text_delta}s as they come, the stop
	 * reason on a last chunk; the stream ends at {@code message_stop}.
	 */
	public static Flux<StreamChunk> chunks(Flux<ServerSentEvent<String>> events) {
		return events.<StreamChunk>handle((event, sink) -> {
			StreamPiece piece = DECODER.decode(event.event(), event.data());
			switch (piece.kind()) {
				case TEXT -> sink.next(new StreamChunk(piece.text(), piece.finishReason()));
				case END -> sink.complete();
				case FAILURE -> sink.error(new ProviderAnswerException(Objects.requireNonNull(piece.failure())));
				default -> {
					// Nothing to hand on.
				}
			}
		});
	}

}
