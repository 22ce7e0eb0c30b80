package io.github.llmresilience.actuate;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.http.MediaType;

/**
 * The body of a chain edit, {@code {"targets": ["secondary", "primary"]}}, turned into
 * the shape {@link LlmResilienceEndpoint#change} takes, {@code {"targets":
 * "secondary,primary"}}. Only a JSON object whose {@code targets} is an array is touched;
 * any other body is left as it came, for the operation (or Boot) to answer.
 */
final class ChainEditBody {

	/** The most a chain edit's body may hold; as much as Spring's codecs buffer by default. */
	static final int MAX_BYTES = 256 * 1024;

	private static final int SHOWN_CHARS = 40;

	private static final JsonMapper JSON = JsonMapper.shared();

	private ChainEditBody() {
	}

	/**
	 * Adapt a chain edit's body.
	 * @param body the request body as it came (JSON in UTF-8, UTF-16 or UTF-32)
	 * @return {@link Unchanged} when the body is not a JSON object with an array of
	 * {@code targets}; {@link Rewritten} (UTF-8) when it is and every element is a target
	 * name; {@link Rejected} otherwise
	 */
	static Outcome adapt(byte[] body) {
		JsonNode tree;
		try {
			tree = JSON.readTree(body);
		}
		catch (JacksonException ex) {
			return Unchanged.INSTANCE;
		}
		if (!(tree instanceof ObjectNode object) || !object.path("targets").isArray()) {
			return Unchanged.INSTANCE;
		}
		List<String> names = new ArrayList<>();
		int index = 0;
		for (JsonNode element : object.get("targets").values()) {
			String at = "\"targets\"[" + index++ + "]";
			if (!element.isString()) {
				return new Rejected(at + " is not a target name but " + describe(element) + ": \"targets\" lists "
						+ "the chain's target names in order, such as [\"secondary\", \"primary\"]");
			}
			String name = element.stringValue();
			if (name.isBlank()) {
				return new Rejected(at + " is an empty name");
			}
			if (name.contains(",")) {
				return new Rejected(at + " is '" + shown(name) + "': a target name has no comma");
			}
			names.add(name);
		}
		object.put("targets", String.join(",", names));
		return new Rewritten(JSON.writeValueAsBytes(object));
	}

	/**
	 * The content type of a rewritten body, which is UTF-8: the request's own, with its
	 * {@code charset}, where it names another, set to UTF-8.
	 * @param contentType the request's content type
	 */
	static String contentTypeOfRewritten(String contentType) {
		MediaType type = MediaType.parseMediaType(contentType);
		return (type.getCharset() == null || StandardCharsets.UTF_8.equals(type.getCharset())) ? contentType
				: new MediaType(type, StandardCharsets.UTF_8).toString();
	}

	/** The JSON body of a 400 answer, shaped like the endpoint's own. */
	static byte[] badRequest(String message) {
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("status", 400);
		body.put("error", "Bad Request");
		body.put("message", message);
		return JSON.writeValueAsBytes(body);
	}

	/** The JSON body of a 413 answer. */
	static byte[] tooLarge() {
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("status", 413);
		body.put("error", "Payload Too Large");
		body.put("message", "A chain edit's body holds at most " + MAX_BYTES + " bytes");
		return JSON.writeValueAsBytes(body);
	}

	private static String describe(JsonNode element) {
		String kind = switch (element.getNodeType()) {
			case NUMBER -> "a number";
			case BOOLEAN -> "a boolean";
			case NULL -> "null";
			case ARRAY -> "an array";
			case OBJECT -> "an object";
			default -> "a " + element.getNodeType().name().toLowerCase(Locale.ROOT);
		};
		return element.isNull() ? kind : kind + " (" + shown(element.toString()) + ")";
	}

	private static String shown(String text) {
		return (text.length() <= SHOWN_CHARS) ? text : text.substring(0, SHOWN_CHARS) + "...";
	}

	/** What became of a body. */
	sealed interface Outcome permits Unchanged, Rewritten, Rejected {

	}

	/** Not a JSON object with an array of {@code targets}: pass it on as it came. */
	static final class Unchanged implements Outcome {

		static final Unchanged INSTANCE = new Unchanged();

		private Unchanged() {
		}

	}

	/**
	 * The body with its {@code targets} array joined into one comma-separated string.
	 *
	 * @param body the new body, JSON in UTF-8
	 */
	record Rewritten(byte[] body) implements Outcome {

	}

	/**
	 * An array of {@code targets} with an element that is no target name.
	 *
	 * @param message what is wrong
	 */
	record Rejected(String message) implements Outcome {

	}

}
