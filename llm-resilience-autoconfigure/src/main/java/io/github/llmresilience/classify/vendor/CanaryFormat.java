package io.github.llmresilience.classify.vendor;

import java.net.URI;
import java.net.http.HttpRequest;
import java.util.List;
import java.util.Map;

import io.github.llmresilience.target.Secret;
import io.github.llmresilience.target.Target;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.io.JsonStringEncoder;

/**
 * How the built-in canary asks a vendor one question and reads the answer's text. An
 * answer must be well-formed for its vendor, or the canary fails: a degraded tier's empty
 * or malformed 200 is exactly what a canary is for.
 */
public interface CanaryFormat {

	/**
	 * The vendor's public base URL, or {@code null} when it has none (Azure,
	 * OpenAI-compatible servers): the target must name one.
	 */
	@Nullable URI publicBaseUrl();

	/** Where to send the question. */
	URI uri(URI base, Target target);

	/** Add the key header. */
	void authorize(HttpRequest.Builder request, Secret key);

	/** Add the headers every request needs beside the key. */
	default void headers(HttpRequest.Builder request) {
	}

	/** The JSON body asking the question. */
	String body(Target target, String prompt, int maxTokens);

	/**
	 * The answer's text in a well-formed body of this vendor.
	 * @param body the parsed body: objects as {@link Map}s, arrays as {@link List}s,
	 * strings as {@link String}s
	 * @return the text, or {@code null} when the body is not this vendor's answer
	 */
	@Nullable String text(Object body);

	/** What a well-formed answer is called in a failure: {@code Anthropic message}. */
	String answerName();

	/** The base URL and a path, one slash between them. */
	static URI join(URI base, String path) {
		String text = base.toString();
		while (text.endsWith("/")) {
			text = text.substring(0, text.length() - 1);
		}
		return URI.create(text + path);
	}

	/** A JSON string literal, escaped by Jackson. */
	static String quote(String value) {
		StringBuilder quoted = new StringBuilder(value.length() + 2).append('"');
		JsonStringEncoder.getInstance().quoteAsString(value, quoted);
		return quoted.append('"').toString();
	}

	/** The member {@code key} of an object node, or {@code null}. */
	static @Nullable Object member(@Nullable Object node, String key) {
		return (node instanceof Map<?, ?> map) ? map.get(key) : null;
	}

	/** The elements of an array node; empty for any other node. */
	@SuppressWarnings("unchecked")
	static List<Object> elements(@Nullable Object node) {
		return (node instanceof List<?> list) ? (List<Object>) list : List.of();
	}

	/**
	 * The text of the parts that have it, joined; {@code null} when none has (parts of
	 * another type are skipped when a type is given).
	 */
	static @Nullable String joinText(List<Object> parts, @Nullable String typeKey, @Nullable String typeValue) {
		StringBuilder text = null;
		for (Object part : parts) {
			if (typeKey != null && !typeValue.equals(member(part, typeKey))) {
				continue;
			}
			if (member(part, "text") instanceof String piece) {
				text = (text != null) ? text.append(piece) : new StringBuilder(piece);
			}
		}
		return (text != null) ? text.toString() : null;
	}

}
