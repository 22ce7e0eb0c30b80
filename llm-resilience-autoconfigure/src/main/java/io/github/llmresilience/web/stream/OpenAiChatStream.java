package io.github.llmresilience.web.stream;

import java.util.List;

import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.internal.JsonBody;
import io.github.llmresilience.extract.ProviderAnswerException;
import org.jspecify.annotations.Nullable;
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

	private OpenAiChatStream() {
	}

	/**
	 * The text chunks of a chat-completions stream; pieces without text (the role-only
	 * first chunk, keep-alives) are skipped, and the stream ends at {@code [DONE]}.
	 */
	public static Flux<StreamChunk> chunks(Flux<ServerSentEvent<String>> events) {
		return events.<StreamChunk>handle((event, sink) -> {
			String data = event.data();
			if (data == null || data.isBlank()) {
				return;
			}
			if ("[DONE]".equals(data.trim())) {
				sink.complete();
				return;
			}
			Object json = JsonBody.parse(data);
			String type = JsonBody.text(json, "type");
			if ("error".equals(event.event()) || JsonBody.member(json, "error") != null || "error".equals(type)
					|| "response.failed".equals(type)) {
				sink.error(new ProviderAnswerException(ProviderResponse.streamEvent(event.event(), data)));
				return;
			}
			List<@Nullable Object> choices = JsonBody.array(json, "choices");
			if (choices.isEmpty()) {
				return;
			}
			Object choice = choices.get(0);
			String finish = JsonBody.text(choice, "finish_reason");
			if ("content_filter".equals(finish)) {
				sink.error(new ProviderAnswerException(ProviderResponse.streamEvent(event.event(), data)));
				return;
			}
			String text = JsonBody.text(choice, "delta", "content");
			if ((text != null && !text.isEmpty()) || finish != null) {
				sink.next(new StreamChunk((text != null) ? text : "", finish));
			}
		});
	}

}
