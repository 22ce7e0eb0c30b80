package io.github.llmresilience.classify.vendor;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class JsonBodyTests {

	@Test
	void readsObjectsArraysStringsNumbersAndLiterals() {
		Object json = JsonBody.parse("{\"a\":{\"b\":[1,\"x\\\"y\\u0041\",true,null]},\"n\":-1.5e3}");
		assertThat(JsonBody.text(json, "n")).isEqualTo("-1.5e3");
		List<Object> list = JsonBody.array(json, "a", "b");
		assertThat(list).containsExactly("1", "x\"yA", Boolean.TRUE, null);
	}

	@Test
	void truncatedBodyKeepsWhatWasRead() {
		Object json = JsonBody.parse("{\"error\":{\"type\":\"insufficient_quota\",\"message\":\"You exc");
		assertThat(JsonBody.text(json, "error", "type")).isEqualTo("insufficient_quota");
		assertThat(JsonBody.text(json, "error", "message")).isEqualTo("You exc");
	}

	@Test
	void notJsonIsNull() {
		assertThat(JsonBody.parse("<html>502</html>")).isNull();
		assertThat(JsonBody.parse("")).isNull();
		assertThat(JsonBody.parse(null)).isNull();
		assertThat(JsonBody.parse("\"just a string\"")).isNull();
	}

	@Test
	void garbageInsideStopsReadingWithoutFailing() {
		Object json = JsonBody.parse("{\"type\":\"error\", oops \"later\":1}");
		assertThat(JsonBody.text(json, "type")).isEqualTo("error");
		assertThat(JsonBody.member(json, "later")).isNull();
	}

	@Test
	void arrayWrappedEnvelopeUnwraps() {
		Object json = JsonBody.unwrapArray(JsonBody.parse("[{\"error\":{\"code\":429}}]"));
		assertThat(JsonBody.text(json, "error", "code")).isEqualTo("429");
	}

	@Test
	void depthIsBounded() {
		Object json = JsonBody.parse("{\"a\":".repeat(1000) + "1" + "}".repeat(1000));
		Object node = json;
		int depth = 0;
		while (node instanceof Map<?, ?> map && map.get("a") != null) {
			node = map.get("a");
			depth++;
		}
		assertThat(depth).isLessThanOrEqualTo(JsonBody.MAX_DEPTH);
	}

	@Test
	void stringsWithAndWithoutEscapesReadTheSame() {
		Object json = JsonBody
			.parse("{\"a\":\"plain\",\"b\":\"one\\\\two\\\"three\\nfour\",\"c\":\"\",\"d\":\"\\\"\"}");
		assertThat(JsonBody.text(json, "a")).isEqualTo("plain");
		assertThat(JsonBody.text(json, "b")).isEqualTo("one\\two\"three\nfour");
		assertThat(JsonBody.text(json, "c")).isEmpty();
		assertThat(JsonBody.text(json, "d")).isEqualTo("\"");
	}

	@Test
	void aLongMessageIsReadWholeAndTheFieldsAfterItToo() {
		String message = "x".repeat(60_000) + "\\n" + "y".repeat(1000);
		Object json = JsonBody
			.parse("{\"error\":{\"message\":\"" + message + "\",\"type\":\"invalid_request_error\"}}");
		String read = JsonBody.text(json, "error", "message");
		// Lengths and positions only: a failing assertion should not print 60,000
		// characters.
		assertThat(read.length()).isEqualTo(61_001);
		assertThat(read.indexOf('\n')).isEqualTo(60_000);
		assertThat(JsonBody.text(json, "error", "type")).isEqualTo("invalid_request_error");
	}

	@Test
	void onlyTheFirst64KiBAreRead() {
		String body = "{\"a\":\"" + "z".repeat(JsonBody.MAX_CHARS) + "\",\"b\":\"never\"}";
		Object json = JsonBody.parse(body);
		assertThat(JsonBody.text(json, "a").length()).isEqualTo(JsonBody.MAX_CHARS - 6);
		assertThat(JsonBody.member(json, "b")).isNull();
	}

	@Test
	void aBodyCutInsideAnEscapeKeepsTheStringUpToIt() {
		String whole = "{\"error\":{\"type\":\"overloaded_error\",\"message\":\"Over\\u00e9\\\"loaded\"}}";
		assertThat(JsonBody.text(JsonBody.parse(whole), "error", "message")).isEqualTo("Over\u00e9\"loaded");
		int at = whole.indexOf("\\u00e9");
		// Cut after the backslash, and after each of the escape's characters.
		for (int cut = at + 1; cut < at + 6; cut++) {
			Object json = JsonBody.parse(whole.substring(0, cut));
			assertThat(JsonBody.text(json, "error", "type")).isEqualTo("overloaded_error");
			assertThat(JsonBody.text(json, "error", "message")).as("cut at %d", cut).isEqualTo("Over");
		}
		Object json = JsonBody.parse(whole.substring(0, whole.indexOf("\\\"") + 1));
		assertThat(JsonBody.text(json, "error", "message")).isEqualTo("Over\u00e9");
	}

	@Test
	void aBodyCutAnywhereNeverThrowsAndKeepsTheFieldsBeforeTheCut() {
		String whole = "{\"error\":{\"code\":429,\"status\":\"RESOURCE_EXHAUSTED\",\"details\":[{\"@type\":"
				+ "\"type.googleapis.com/google.rpc.RetryInfo\",\"retryDelay\":\"26s\"}],\"message\":\"You "
				+ "exceeded your current quota\\nsee \\\"docs\\\"\"}}";
		int statusEnd = whole.indexOf("RESOURCE_EXHAUSTED") + "RESOURCE_EXHAUSTED".length() + 1;
		for (int cut = 0; cut <= whole.length(); cut++) {
			Object json = JsonBody.parse(whole.substring(0, cut));
			if (cut >= statusEnd) {
				assertThat(JsonBody.text(json, "error", "status")).as("cut at %d", cut).isEqualTo("RESOURCE_EXHAUSTED");
			}
		}
	}

	@Test
	void aDepthBombStopsAtTheLimitWithoutFailing() {
		// Arrays, as a JSON bomb would nest them, and a million levels of them.
		String bomb = "{\"error\":{\"type\":\"rate_limit_error\"},\"x\":" + "[".repeat(1_000_000);
		Object json = JsonBody.parse(bomb);
		assertThat(JsonBody.text(json, "error", "type")).isEqualTo("rate_limit_error");
		int depth = 1;
		Object node = JsonBody.member(json, "x");
		while (node instanceof List<?> list && !list.isEmpty()) {
			node = list.get(0);
			depth++;
		}
		assertThat(depth).isLessThanOrEqualTo(JsonBody.MAX_DEPTH);
		// The levels within the limit are read whole.
		String deep = "{\"a\":".repeat(JsonBody.MAX_DEPTH - 1) + "\"leaf\"" + "}".repeat(JsonBody.MAX_DEPTH - 1);
		String[] path = new String[JsonBody.MAX_DEPTH - 1];
		Arrays.fill(path, "a");
		assertThat(JsonBody.text(JsonBody.parse(deep), path)).isEqualTo("leaf");
	}

	@Test
	void aHugeStringIsReadOnlyAsFarAsTheLimit() {
		// 16 MiB of message: what is read stops at MAX_CHARS, whatever the body's length.
		String body = "{\"error\":{\"type\":\"invalid_request_error\",\"message\":\"" + "m".repeat(16 * 1024 * 1024)
				+ "\"}}";
		Object json = JsonBody.parse(body);
		assertThat(JsonBody.text(json, "error", "type")).isEqualTo("invalid_request_error");
		assertThat(JsonBody.text(json, "error", "message").length()).isLessThan(JsonBody.MAX_CHARS);
	}

	@Test
	void aHugeNumberStopsReading() {
		Object json = JsonBody.parse("{\"type\":\"error\",\"n\":" + "9".repeat(10_000) + ",\"later\":1}");
		assertThat(JsonBody.text(json, "type")).isEqualTo("error");
		assertThat(JsonBody.member(json, "n")).isNull();
		assertThat(JsonBody.member(json, "later")).isNull();
		String longest = "9".repeat(JsonBody.MAX_NUMBER_LENGTH);
		assertThat(JsonBody.text(JsonBody.parse("{\"n\":" + longest + "}"), "n")).isEqualTo(longest);
	}

	@Test
	void htmlEmptyAndBinaryBodiesAreNotJson() {
		assertThat(JsonBody.parse("<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head></html>")).isNull();
		assertThat(JsonBody.parse("   \n\t  ")).isNull();
		assertThat(JsonBody.parse("upstream connect error or disconnect/reset before headers")).isNull();
		Random random = new Random(42);
		for (int i = 0; i < 1_000; i++) {
			char[] garbage = new char[random.nextInt(200)];
			for (int j = 0; j < garbage.length; j++) {
				garbage[j] = (char) random.nextInt(Character.MAX_VALUE + 1);
			}
			// Starting with a bracket, so that the parser reads it.
			JsonBody.parse("{" + new String(garbage));
			JsonBody.parse("[" + new String(garbage));
		}
	}

	@Test
	void aBomAndLeadingWhitespaceAreSkipped() {
		assertThat(JsonBody.text(JsonBody.parse("\uFEFF \n{\"type\":\"error\"}"), "type")).isEqualTo("error");
	}

	@Test
	void onlyTheFirstValueIsRead() {
		Object json = JsonBody.parse("{\"type\":\"error\"}<html>trailing garbage");
		assertThat(JsonBody.text(json, "type")).isEqualTo("error");
	}

	@Test
	void theFirstOfDuplicateMembersWins() {
		assertThat(JsonBody.text(JsonBody.parse("{\"type\":\"first\",\"type\":\"second\"}"), "type"))
			.isEqualTo("first");
	}

	@Test
	void unescapedControlCharactersInAStringAreRead() {
		assertThat(JsonBody.text(JsonBody.parse("{\"message\":\"line one\nline two\"}"), "message"))
			.isEqualTo("line one\nline two");
	}

}
