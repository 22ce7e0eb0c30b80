package io.github.llmresilience.classify.vendor.anthropic;

import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.vendor.JsonBody;
import io.github.llmresilience.classify.vendor.StreamDecoder;
import io.github.llmresilience.classify.vendor.StreamPiece;
import org.jspecify.annotations.Nullable;

/**
 * An Anthropic messages stream: {@code text_delta}s as they come, the stop reason on a
 * last piece; the stream ends at {@code message_stop}. An {@code event: error} inside the
 * 200 stream (such as {@code overloaded_error}) and a refusal
 * ({@code stop_reason: refusal}) are failures.
 */
final class AnthropicMessageDecoder implements StreamDecoder {

	@Override
	public StreamPiece decode(@Nullable String event, @Nullable String eventData) {
		String data = (eventData != null) ? eventData : "";
		Object json = JsonBody.parse(data);
		String type = (event != null) ? event : JsonBody.text(json, "type");
		if (type == null) {
			return StreamPiece.skip();
		}
		switch (type) {
			case "error" -> {
				return StreamPiece.failure(ProviderResponse.streamEvent("error", data));
			}
			case "content_block_delta" -> {
				String text = JsonBody.text(json, "delta", "text");
				return (text != null && !text.isEmpty()) ? StreamPiece.text(text, null) : StreamPiece.skip();
			}
			case "message_delta" -> {
				String stop = JsonBody.text(json, "delta", "stop_reason");
				if ("refusal".equals(stop)) {
					return StreamPiece.failure(ProviderResponse.streamEvent(type, data));
				}
				return (stop != null) ? StreamPiece.text("", stop) : StreamPiece.skip();
			}
			case "message_stop" -> {
				return StreamPiece.end();
			}
			default -> {
				// message_start, content_block_start/stop, ping: nothing to hand on.
				return StreamPiece.skip();
			}
		}
	}

}
