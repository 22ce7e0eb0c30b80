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

}
