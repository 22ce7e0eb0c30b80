package io.github.llmresilience.web.stream;

import java.util.Objects;

import io.github.llmresilience.classify.vendor.StreamDecoder;
import io.github.llmresilience.classify.vendor.StreamPiece;
import io.github.llmresilience.classify.vendor.openai.OpenAi;
import io.github.llmresilience.extract.ProviderAnswerException;
import reactor.core.publisher.Flux;

import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.codec.ServerSentEvent;

/**
 * Reads an OpenAI chat-completions stream (and those of Azure OpenAI and
 * OpenAI-compatible APIs) as text chunks. An error inside the 200 stream ({@code data:
 * {"error": ...}}, the Responses API's {@code event: error} or {@code response.failed})
 * and a refusal ({@code finish_reason: content_filter}) end the Flux with a
 * {@link ProviderAnswerException}, which the executor classifies like any answer:
 *
 * <pre class="code">
 * resilience.stream("chat", attempt -&gt; OpenAiChatStream.chunks(webClient.post()
 *     .uri(attempt.target().baseUrl() + "/v1/chat/completions")
 *     .bodyValue(requestWithStreamTrue)
 *     .retrieve()
 *     .bodyToFlux(OpenAiChatStream.EVENTS)));
 * </pre>
 */
public final class OpenAiChatStream {

	/** The type to read an SSE body as: {@code bodyToFlux(OpenAiChatStream.EVENTS)}. */
	public static final ParameterizedTypeReference<ServerSentEvent<String>> EVENTS = new ParameterizedTypeReference<>() {
	};

	/** The vendor's decoder, in its folder; this class adapts it to Reactor. */
	private static final StreamDecoder DECODER = Objects.requireNonNull(OpenAi.OPENAI.streamDecoder());

	private OpenAiChatStream() {
	}

	/**
	 * The text chunks of a chat-completions stream; pieces without text (the role-only
	 * first chunk, keep-alives) are skipped, and the stream ends at {@code [DONE]}.
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
