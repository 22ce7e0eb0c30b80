package io.github.llmresilience.classify.vendor;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.exc.UnexpectedEndOfInputException;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.json.JsonReadFeature;

/**
 * Reads an untrusted provider body (an error body, a 2xx body with an error marker, one
 * stream event's data) into a small tree, with Jackson's streaming parser: at most
 * {@link #MAX_CHARS} characters, at most {@link #MAX_DEPTH} levels, numbers of at most
 * {@link #MAX_NUMBER_LENGTH} digits. Objects become {@link Map}s, arrays {@link List}s,
 * numbers their literal text, strings {@link String}s, booleans {@link Boolean}s.
 *
 * <p>
 * On a truncated or malformed body, or one past a limit, reading stops and what was read
 * so far is kept, including the start of a string the body ended in: a classifier wants
 * the {@code error.type} it already saw, where a JSON library alone would reject the
 * whole body. Nothing here throws.
 */
public final class JsonBody {

	/** Characters read at most; the rest of a longer body is not looked at. */
	public static final int MAX_CHARS = 64 * 1024;

	/** Nesting levels (objects and arrays) read at most. */
	public static final int MAX_DEPTH = 24;

	/** Digits of a number read at most: no provider field needs more. */
	public static final int MAX_NUMBER_LENGTH = 40;

	/** How far into a body its first bracket is looked for, past whitespace and a BOM. */
	private static final int MAX_LEADING_WHITESPACE = 1024;

	/**
	 * The longest escape a cut can leave unfinished (a backslash, {@code u} and three hex
	 * digits): a string the body ended in is decoded with at most this many of its last
	 * characters dropped.
	 */
	private static final int LONGEST_PARTIAL_ESCAPE = 5;

	// The document is bounded by cutting the text at MAX_CHARS before parsing rather than
	// with a document length constraint, so that the start of a string that runs past the
	// cut is kept. Names keep Jackson's limit (50,000 characters), lower than MAX_CHARS.
	private static final JsonFactory JSON = JsonFactory.builder()
		.streamReadConstraints(StreamReadConstraints.builder()
			.maxNestingDepth(MAX_DEPTH)
			.maxStringLength(MAX_CHARS)
			.maxNumberLength(MAX_NUMBER_LENGTH)
			.build())
		// What proxies and hand-built error pages get wrong, read as a person would.
		.enable(JsonReadFeature.ALLOW_UNESCAPED_CONTROL_CHARS, JsonReadFeature.ALLOW_BACKSLASH_ESCAPING_ANY_CHARACTER)
		.build();

	private JsonBody() {
	}

	/**
	 * Read the object or array at the start of the text.
	 * @param text the body
	 * @return a map or list, or {@code null} when the text does not start with one
	 */
	public static @Nullable Object parse(@Nullable String text) {
		if (text == null) {
			return null;
		}
		int start = 0;
		int limit = Math.min(text.length(), MAX_LEADING_WHITESPACE);
		while (start < limit && (Character.isWhitespace(text.charAt(start)) || text.charAt(start) == '\uFEFF')) {
			start++;
		}
		// Anything but an object or array is not an envelope: an HTML page, plain text,
		// or a bare JSON value with nothing to classify in it.
		if (start >= text.length() || (text.charAt(start) != '{' && text.charAt(start) != '[')) {
			return null;
		}
		// Jackson reads a char[] in place. Given a String of more than 32K characters it
		// reads through a Reader instead, in pieces of a few thousand, and decodes a
		// message that spans pieces a character at a time: twice the time for a 64 KiB
		// body.
		char[] read = new char[Math.min(text.length(), start + MAX_CHARS) - start];
		text.getChars(start, start + read.length, read, 0);
		Tree tree = new Tree();
		try (JsonParser parser = JSON.createParser(ObjectReadContext.empty(), read)) {
			tree.read(parser, read);
		}
		catch (RuntimeException ex) {
			// Truncated, malformed or past a limit (a JacksonException, or whatever else
			// garbage makes the parser throw): what was read so far is the answer.
		}
		return tree.root;
	}

	/**
	 * The tree as it is built: kept apart from the parser, so that a failure keeps it.
	 */
	private static final class Tree {

		private final ArrayDeque<Object> open = new ArrayDeque<>();

		private @Nullable Object root;

		private @Nullable String name;

		void read(JsonParser parser, char[] text) {
			JsonToken token;
			while ((token = parser.nextToken()) != null) {
				switch (token) {
					case START_OBJECT -> this.open.push(add(new HashMap<String, Object>()));
					case START_ARRAY -> this.open.push(add(new ArrayList<>()));
					case END_OBJECT, END_ARRAY -> {
						this.open.pop();
						if (this.open.isEmpty()) {
							// The first value is the body; whatever follows it is not
							// read.
							return;
						}
					}
					case PROPERTY_NAME -> this.name = parser.currentName();
					case VALUE_STRING -> add(string(parser, text));
					case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> add(parser.getString());
					case VALUE_TRUE -> add(Boolean.TRUE);
					case VALUE_FALSE -> add(Boolean.FALSE);
					case VALUE_NULL -> add(null);
					default -> {
						return;
					}
				}
			}
		}

		private @Nullable Object add(@Nullable Object value) {
			Object parent = this.open.peek();
			if (parent == null) {
				this.root = value;
			}
			else if (parent instanceof Map<?, ?>) {
				// The first of duplicate members wins, as it did when reading by hand.
				@SuppressWarnings("unchecked")
				Map<String, @Nullable Object> map = (Map<String, @Nullable Object>) parent;
				map.putIfAbsent(this.name, value);
			}
			else {
				@SuppressWarnings("unchecked")
				List<@Nullable Object> list = (List<@Nullable Object>) parent;
				list.add(value);
			}
			return value;
		}

		/**
		 * The current string value; when the body ends inside it, what it holds up to the
		 * cut is added before the failure goes on to stop reading.
		 */
		private String string(JsonParser parser, char[] text) {
			try {
				return parser.getString();
			}
			catch (UnexpectedEndOfInputException ex) {
				String partial = partialString(text, parser.currentTokenLocation().getCharOffset());
				if (partial != null) {
					add(partial);
				}
				throw ex;
			}
		}

	}

	/**
	 * Decode the string that starts at {@code quote} and runs to the end of the text,
	 * which cut it. Jackson decodes it, closed with a quote; an escape the cut left
	 * unfinished makes that fail, and is dropped.
	 */
	private static @Nullable String partialString(char[] text, long quote) {
		if (quote < 0 || quote >= text.length || text[(int) quote] != '"') {
			return null;
		}
		for (int drop = 0; drop <= LONGEST_PARTIAL_ESCAPE && quote + drop < text.length; drop++) {
			// From the opening quote to the cut, less what is dropped, and a closing
			// quote.
			char[] closed = Arrays.copyOfRange(text, (int) quote, text.length - drop + 1);
			closed[closed.length - 1] = '"';
			try (JsonParser parser = JSON.createParser(ObjectReadContext.empty(), closed)) {
				if (parser.nextToken() == JsonToken.VALUE_STRING) {
					return parser.getString();
				}
			}
			catch (JacksonException ex) {
				// An unfinished escape at the end: drop one more character.
			}
		}
		return null;
	}

	// Navigation over the tree; every method accepts any node, including null.

	/**
	 * The member {@code key} of an object node.
	 * @param node any node, or {@code null}
	 * @param key the member's name
	 * @return the member, or {@code null} when the node is not an object or has no such
	 * member
	 */
	public static @Nullable Object member(@Nullable Object node, String key) {
		return (node instanceof Map<?, ?> map) ? map.get(key) : null;
	}

	/**
	 * The node at a path of object members.
	 * @param node any node, or {@code null}
	 * @param path the member names, outermost first
	 * @return the node, or {@code null}
	 */
	public static @Nullable Object at(@Nullable Object node, String... path) {
		Object current = node;
		for (String key : path) {
			current = member(current, key);
			if (current == null) {
				return null;
			}
		}
		return current;
	}

	/**
	 * The text of a string, number or boolean node at a path.
	 * @param node any node, or {@code null}
	 * @param path the member names, outermost first
	 * @return the text, or {@code null} for an absent, null, object or array node
	 */
	public static @Nullable String text(@Nullable Object node, String... path) {
		Object value = at(node, path);
		if (value instanceof String string) {
			return string;
		}
		if (value instanceof Boolean bool) {
			return bool.toString();
		}
		return null;
	}

	/**
	 * The elements of an array node at a path.
	 * @param node any node, or {@code null}
	 * @param path the member names, outermost first
	 * @return the elements; empty when the node is absent or not an array
	 */
	@SuppressWarnings("unchecked")
	public static List<@Nullable Object> array(@Nullable Object node, String... path) {
		Object value = at(node, path);
		return (value instanceof List<?> list) ? (List<@Nullable Object>) list : Collections.emptyList();
	}

	/**
	 * Unwrap a body that is a JSON array around the real envelope (Vertex AI does this).
	 * @param node any node, or {@code null}
	 * @return the array's first element when it is an object, else the node itself
	 */
	public static @Nullable Object unwrapArray(@Nullable Object node) {
		if (node instanceof List<?> list && !list.isEmpty() && list.get(0) instanceof Map<?, ?>) {
			return list.get(0);
		}
		return node;
	}

}
