package io.github.llmresilience.extract;

import java.util.List;
import java.util.Map;

import dev.langchain4j.exception.HttpException;
import io.github.llmresilience.classify.ProviderResponse;
import org.jspecify.annotations.Nullable;

/**
 * Reads LangChain4j's {@link HttpException}: the status and the body, which its HTTP
 * client keeps as the exception's message. LangChain4j's model exceptions
 * ({@code RateLimitException}, {@code InternalServerException}, ...) carry it as their
 * cause, and its {@code TimeoutException} carries the JDK's timeout, which the transport
 * extractor reads. Anthropic's error event inside a 200 stream ({@code event: error}),
 * which LangChain4j throws as its {@code AnthropicStreamingException} with the error's
 * type and message, is read as that stream event. LangChain4j keeps no response headers,
 * so a {@code retry-after} does not reach the classifier; the body's wait hints do. Set
 * the model's {@code maxRetries(0)} when this starter owns retrying.
 */
public final class LangChain4jErrorExtractor implements ErrorExtractor {

	private static final String ANTHROPIC_STREAM_ERROR = "dev.langchain4j.model.anthropic.internal.api.AnthropicStreamingException";

	private static final Map<String, List<String>> JSON = Map.of("content-type", List.of("application/json"));

	@Override
	public @Nullable ProviderResponse extract(Throwable error) {
		if (error instanceof HttpException http) {
			String body = http.getMessage();
			return ProviderResponse.of(http.statusCode(), JSON, (body != null) ? body : "");
		}
		if (error.getClass().getName().equals(ANTHROPIC_STREAM_ERROR)) {
			return ProviderResponse.streamEvent("error", anthropicEvent(error));
		}
		return null;
	}

	/**
	 * The event's data as Anthropic sent it, from what LangChain4j kept: the error's type
	 * (its {@code type()}, known by name: the class is in the Anthropic module's internal
	 * package) and message.
	 */
	private static String anthropicEvent(Throwable error) {
		String type;
		try {
			type = String.valueOf(error.getClass().getMethod("type").invoke(error));
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			type = "api_error";
		}
		return "{\"type\":\"error\",\"error\":{\"type\":" + quoted(type) + ",\"message\":"
				+ quoted(String.valueOf(error.getMessage())) + "}}";
	}

	private static String quoted(String text) {
		StringBuilder json = new StringBuilder(text.length() + 2).append('"');
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c == '"' || c == '\\') {
				json.append('\\').append(c);
			}
			else if (c < 0x20) {
				json.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
			}
			else {
				json.append(c);
			}
		}
		return json.append('"').toString();
	}

}
