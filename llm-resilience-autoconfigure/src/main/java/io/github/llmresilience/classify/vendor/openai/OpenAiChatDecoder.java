package io.github.llmresilience.classify.vendor.openai;

import java.util.List;

import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.vendor.JsonBody;
import io.github.llmresilience.classify.vendor.StreamDecoder;
import io.github.llmresilience.classify.vendor.StreamPiece;
import org.jspecify.annotations.Nullable;

/**
 * An OpenAI chat-completions stream (and those of Azure OpenAI and OpenAI-compatible
 * APIs): the text of the first choice's deltas; pieces without text (the role-only first
 * chunk, keep-alives) are skipped, and the stream ends at {@code [DONE]}. An error inside
 * the 200 stream ({@code data: {"error": ...}}, the Responses API's {@code event: error}
 * or {@code response.failed}) and a refusal ({@code finish_reason: content_filter}) are
 * failures.
 */
final class OpenAiChatDecoder implements StreamDecoder {

	@Override
	public StreamPiece decode(@Nullable String event, @Nullable String data) {
		if (data == null || data.isBlank()) {
			return StreamPiece.skip();
		}
		if ("[DONE]".equals(data.trim())) {
			return StreamPiece.end();
		}
		Object json = JsonBody.parse(data);
		String type = JsonBody.text(json, "type");
		if ("error".equals(event) || JsonBody.member(json, "error") != null || "error".equals(type)
				|| "response.failed".equals(type)) {
			return StreamPiece.failure(ProviderResponse.streamEvent(event, data));
		}
		List<@Nullable Object> choices = JsonBody.array(json, "choices");
		if (choices.isEmpty()) {
			return StreamPiece.skip();
		}
		Object choice = choices.get(0);
		String finish = JsonBody.text(choice, "finish_reason");
		if ("content_filter".equals(finish)) {
			return StreamPiece.failure(ProviderResponse.streamEvent(event, data));
		}
		String text = JsonBody.text(choice, "delta", "content");
		if ((text != null && !text.isEmpty()) || finish != null) {
			return StreamPiece.text((text != null) ? text : "", finish);
		}
		return StreamPiece.skip();
	}

}
