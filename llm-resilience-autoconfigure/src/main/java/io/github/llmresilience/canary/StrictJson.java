package io.github.llmresilience.canary;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;

/**
 * Reads a canary's answer strictly, with Jackson's streaming parser: one complete JSON
 * value and nothing after it, or not JSON at all. The classifiers' reader keeps what a
 * truncated body started; a canary must not pass on half an answer.
 */
final class StrictJson {

	/** Nesting levels read at most. */
	private static final int MAX_DEPTH = 64;

	private static final JsonFactory JSON = JsonFactory.builder()
		.streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build())
		.build();

	/** Stands for a JSON {@code null} in a tree, where Java's null means "absent". */
	static final Object NULL = new Object();

	private StrictJson() {
	}

	/** Whether the text is exactly one JSON value (whitespace around it allowed). */
	static boolean isJson(String text) {
		return read(text) != null;
	}

	/**
	 * Read the text into a tree: objects become {@link Map}s, arrays {@link List}s,
	 * strings {@link String}s, numbers their literal text, booleans {@link Boolean}s,
	 * {@code null} {@link #NULL}.
	 * @return the tree, or {@code null} when the text is not exactly one JSON value
	 */
	static @Nullable Object read(String text) {
		if (text.isBlank()) {
			return null;
		}
		try (JsonParser parser = JSON.createParser(ObjectReadContext.empty(), text)) {
			ArrayDeque<Object> open = new ArrayDeque<>();
			Object root = null;
			String name = null;
			JsonToken token;
			while ((token = parser.nextToken()) != null) {
				Object value;
				switch (token) {
					case PROPERTY_NAME -> {
						name = parser.currentName();
						continue;
					}
					case START_OBJECT, START_ARRAY -> {
						Object container = (token == JsonToken.START_OBJECT) ? new HashMap<String, Object>()
								: new ArrayList<>();
						if (open.isEmpty()) {
							root = container;
						}
						else {
							add(open.peek(), name, container);
						}
						open.push(container);
						name = null;
						continue;
					}
					case END_OBJECT, END_ARRAY -> {
						open.pop();
						name = null;
						if (open.isEmpty()) {
							return (parser.nextToken() == null) ? root : null;
						}
						continue;
					}
					case VALUE_STRING -> value = parser.getString();
					case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> value = parser.getString();
					case VALUE_TRUE -> value = Boolean.TRUE;
					case VALUE_FALSE -> value = Boolean.FALSE;
					case VALUE_NULL -> value = NULL;
					default -> {
						return null;
					}
				}
				if (open.isEmpty()) {
					// A bare scalar: complete when nothing follows it.
					return (parser.nextToken() == null) ? value : null;
				}
				add(open.peek(), name, value);
				name = null;
			}
			return null;
		}
		catch (RuntimeException ex) {
			// Malformed, truncated or past a limit: not JSON.
			return null;
		}
	}

	@SuppressWarnings("unchecked")
	private static void add(Object container, @Nullable String name, Object value) {
		if (container instanceof Map<?, ?> map) {
			((Map<String, Object>) map).put(String.valueOf(name), value);
		}
		else {
			((List<Object>) container).add(value);
		}
	}

}
