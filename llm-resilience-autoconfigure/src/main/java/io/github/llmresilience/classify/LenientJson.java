package io.github.llmresilience.classify;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A JSON reader for untrusted provider bodies: reads at most {@link #MAX_CHARS}
 * characters, at most {@link #MAX_DEPTH} levels, and on truncated or malformed input
 * returns what it read so far instead of failing. Objects become {@link Map}s, arrays
 * {@link List}s, numbers their literal text, strings {@link String}s.
 *
 * <p>A full JSON library would reject a truncated body outright; a classifier wants the
 * {@code error.type} it already saw.
 */
public final class LenientJson {

	/** Characters read at most. */
	public static final int MAX_CHARS = 64 * 1024;

	/** Nesting levels read at most. */
	public static final int MAX_DEPTH = 24;

	private final String text;

	private final int end;

	private int pos;

	private boolean stopped;

	/** Where the next quote and backslash are at or after {@link #pos}; {@link #end} for none. */
	private int nextQuote = -1;

	private int nextEscape = -1;

	private LenientJson(String text, int start) {
		// Cut a longer text to what is read, so that searching it never runs past the limit.
		this.text = (text.length() - start > MAX_CHARS) ? text.substring(0, start + MAX_CHARS) : text;
		this.end = this.text.length();
		this.pos = start;
	}

	/**
	 * Read the object or array at the start of the text.
	 * @param text the body
	 * @return a map or list, or {@code null} when the text does not start with one
	 */
	public static Object parse(String text) {
		if (text == null) {
			return null;
		}
		int start = 0;
		int limit = Math.min(text.length(), 1024);
		while (start < limit && (Character.isWhitespace(text.charAt(start)) || text.charAt(start) == '\uFEFF')) {
			start++;
		}
		if (start >= text.length() || (text.charAt(start) != '{' && text.charAt(start) != '[')) {
			return null;
		}
		return new LenientJson(text, start).value(0);
	}

	private Object value(int depth) {
		skipWhitespace();
		if (this.pos >= this.end || depth > MAX_DEPTH) {
			this.stopped = true;
			return null;
		}
		char c = this.text.charAt(this.pos);
		return switch (c) {
			case '{' -> object(depth);
			case '[' -> array(depth);
			case '"' -> string();
			default -> literal();
		};
	}

	private Map<String, Object> object(int depth) {
		Map<String, Object> map = new HashMap<>();
		this.pos++;
		while (!this.stopped) {
			skipWhitespace();
			if (this.pos >= this.end) {
				this.stopped = true;
				break;
			}
			char c = this.text.charAt(this.pos);
			if (c == '}') {
				this.pos++;
				break;
			}
			if (c == ',') {
				this.pos++;
				continue;
			}
			if (c != '"') {
				this.stopped = true;
				break;
			}
			String key = string();
			skipWhitespace();
			if (this.stopped || this.pos >= this.end || this.text.charAt(this.pos) != ':') {
				this.stopped = true;
				break;
			}
			this.pos++;
			Object value = value(depth + 1);
			if (!this.stopped || value != null) {
				map.putIfAbsent(key, value);
			}
		}
		return map;
	}

	private List<Object> array(int depth) {
		List<Object> list = new ArrayList<>();
		this.pos++;
		while (!this.stopped) {
			skipWhitespace();
			if (this.pos >= this.end) {
				this.stopped = true;
				break;
			}
			char c = this.text.charAt(this.pos);
			if (c == ']') {
				this.pos++;
				break;
			}
			if (c == ',') {
				this.pos++;
				continue;
			}
			Object value = value(depth + 1);
			if (!this.stopped || value != null) {
				list.add(value);
			}
		}
		return list;
	}

	private String string() {
		this.pos++;
		// Copy the runs between escapes whole: appending char by char took about 180 us and
		// 210 KB for one 64 KiB message. The positions of the next quote and backslash are
		// kept between strings, so every character is searched at most once for each.
		int quote = next('"');
		int escape = next('\\');
		if (quote < escape) {
			String value = this.text.substring(this.pos, quote);
			this.pos = quote + 1;
			return value;
		}
		StringBuilder out = new StringBuilder();
		while (true) {
			int stop = Math.min(quote, escape);
			out.append(this.text, this.pos, stop);
			this.pos = stop;
			if (this.pos >= this.end) {
				break;
			}
			this.pos++;
			if (stop == quote) {
				return out.toString();
			}
			if (this.pos >= this.end) {
				break;
			}
			char escaped = this.text.charAt(this.pos++);
			switch (escaped) {
				case 'n' -> out.append('\n');
				case 't' -> out.append('\t');
				case 'r' -> out.append('\r');
				case 'b' -> out.append('\b');
				case 'f' -> out.append('\f');
				case 'u' -> {
					if (this.pos + 4 > this.end) {
						this.pos = this.end;
						break;
					}
					int code = 0;
					for (int i = 0; i < 4; i++) {
						int digit = Character.digit(this.text.charAt(this.pos + i), 16);
						if (digit < 0) {
							code = -1;
							break;
						}
						code = code * 16 + digit;
					}
					if (code < 0) {
						this.stopped = true;
						return out.toString();
					}
					out.append((char) code);
					this.pos += 4;
				}
				default -> out.append(escaped);
			}
			quote = next('"');
			escape = next('\\');
		}
		// The body ended inside a string: keep what was read, stop reading.
		this.stopped = true;
		return out.toString();
	}

	/** The position of the next quote or backslash at or after {@link #pos}, or {@link #end}. */
	private int next(char c) {
		int found = (c == '"') ? this.nextQuote : this.nextEscape;
		if (found < this.pos) {
			found = this.text.indexOf(c, this.pos);
			if (found < 0) {
				found = this.end;
			}
			if (c == '"') {
				this.nextQuote = found;
			}
			else {
				this.nextEscape = found;
			}
		}
		return found;
	}

	private Object literal() {
		int start = this.pos;
		while (this.pos < this.end) {
			char c = this.text.charAt(this.pos);
			if (c == ',' || c == '}' || c == ']' || Character.isWhitespace(c)) {
				break;
			}
			this.pos++;
		}
		String token = this.text.substring(start, this.pos);
		if (this.pos >= this.end) {
			this.stopped = true;
		}
		switch (token) {
			case "null":
				return null;
			case "true":
				return Boolean.TRUE;
			case "false":
				return Boolean.FALSE;
			default:
				if (token.isEmpty() || !isNumber(token)) {
					this.stopped = true;
					return null;
				}
				return token;
		}
	}

	private static boolean isNumber(String token) {
		for (int i = 0; i < token.length(); i++) {
			char c = token.charAt(i);
			if (!((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E')) {
				return false;
			}
		}
		return token.length() <= 40;
	}

	private void skipWhitespace() {
		while (this.pos < this.end && Character.isWhitespace(this.text.charAt(this.pos))) {
			this.pos++;
		}
	}

	// Navigation over the tree; every method accepts any node, including null.

	/** The member {@code key} of an object node, or {@code null}. */
	public static Object member(Object node, String key) {
		return (node instanceof Map<?, ?> map) ? map.get(key) : null;
	}

	/** The node at a path of object members, or {@code null}. */
	public static Object at(Object node, String... path) {
		Object current = node;
		for (String key : path) {
			current = member(current, key);
			if (current == null) {
				return null;
			}
		}
		return current;
	}

	/** The text of a string, number or boolean node at a path, or {@code null}. */
	public static String text(Object node, String... path) {
		Object value = at(node, path);
		if (value instanceof String string) {
			return string;
		}
		if (value instanceof Boolean bool) {
			return bool.toString();
		}
		return null;
	}

	/** The elements of an array node at a path; empty when absent. */
	@SuppressWarnings("unchecked")
	public static List<Object> array(Object node, String... path) {
		Object value = at(node, path);
		return (value instanceof List<?> list) ? (List<Object>) list : Collections.emptyList();
	}

	/** Unwrap a body that is a JSON array around the real envelope (Vertex AI does this). */
	public static Object unwrapArray(Object node) {
		if (node instanceof List<?> list && !list.isEmpty() && list.get(0) instanceof Map<?, ?>) {
			return list.get(0);
		}
		return node;
	}

}
