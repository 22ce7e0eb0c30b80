package io.github.llmresilience.classify;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LenientJsonTest {

	@Test
	void readsObjectsArraysStringsNumbersAndLiterals() {
		Object json = LenientJson.parse("{\"a\":{\"b\":[1,\"x\\\"y\\u0041\",true,null]},\"n\":-1.5e3}");
		assertThat(LenientJson.text(json, "n")).isEqualTo("-1.5e3");
		List<Object> list = LenientJson.array(json, "a", "b");
		assertThat(list).containsExactly("1", "x\"yA", Boolean.TRUE, null);
	}

	@Test
	void truncatedBodyKeepsWhatWasRead() {
		Object json = LenientJson.parse("{\"error\":{\"type\":\"insufficient_quota\",\"message\":\"You exc");
		assertThat(LenientJson.text(json, "error", "type")).isEqualTo("insufficient_quota");
		assertThat(LenientJson.text(json, "error", "message")).isEqualTo("You exc");
	}

	@Test
	void notJsonIsNull() {
		assertThat(LenientJson.parse("<html>502</html>")).isNull();
		assertThat(LenientJson.parse("")).isNull();
		assertThat(LenientJson.parse(null)).isNull();
		assertThat(LenientJson.parse("\"just a string\"")).isNull();
	}

	@Test
	void garbageInsideStopsReadingWithoutFailing() {
		Object json = LenientJson.parse("{\"type\":\"error\", oops \"later\":1}");
		assertThat(LenientJson.text(json, "type")).isEqualTo("error");
		assertThat(LenientJson.member(json, "later")).isNull();
	}

	@Test
	void arrayWrappedEnvelopeUnwraps() {
		Object json = LenientJson.unwrapArray(LenientJson.parse("[{\"error\":{\"code\":429}}]"));
		assertThat(LenientJson.text(json, "error", "code")).isEqualTo("429");
	}

	@Test
	void depthIsBounded() {
		Object json = LenientJson.parse("{\"a\":".repeat(1000) + "1" + "}".repeat(1000));
		Object node = json;
		int depth = 0;
		while (node instanceof Map<?, ?> map && map.get("a") != null) {
			node = map.get("a");
			depth++;
		}
		assertThat(depth).isLessThanOrEqualTo(LenientJson.MAX_DEPTH);
	}

	@Test
	void stringsWithAndWithoutEscapesReadTheSame() {
		Object json = LenientJson.parse("{\"a\":\"plain\",\"b\":\"one\\\\two\\\"three\\nfour\",\"c\":\"\",\"d\":\"\\\"\"}");
		assertThat(LenientJson.text(json, "a")).isEqualTo("plain");
		assertThat(LenientJson.text(json, "b")).isEqualTo("one\\two\"three\nfour");
		assertThat(LenientJson.text(json, "c")).isEmpty();
		assertThat(LenientJson.text(json, "d")).isEqualTo("\"");
	}

	@Test
	void aLongMessageIsReadWholeAndTheFieldsAfterItToo() {
		String message = "x".repeat(60_000) + "\\n" + "y".repeat(1000);
		Object json = LenientJson.parse("{\"error\":{\"message\":\"" + message + "\",\"type\":\"invalid_request_error\"}}");
		String read = LenientJson.text(json, "error", "message");
		// Lengths and positions only: a failing assertion should not print 60,000 characters.
		assertThat(read.length()).isEqualTo(61_001);
		assertThat(read.indexOf('\n')).isEqualTo(60_000);
		assertThat(LenientJson.text(json, "error", "type")).isEqualTo("invalid_request_error");
	}

	@Test
	void onlyTheFirst64KiBAreRead() {
		String body = "{\"a\":\"" + "z".repeat(LenientJson.MAX_CHARS) + "\",\"b\":\"never\"}";
		Object json = LenientJson.parse(body);
		assertThat(LenientJson.text(json, "a").length()).isEqualTo(LenientJson.MAX_CHARS - 6);
		assertThat(LenientJson.member(json, "b")).isNull();
	}

}
