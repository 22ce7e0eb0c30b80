package io.github.llmresilience.sample.simulator;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A complete HTTP answer of a simulated vendor.
 *
 * @param status the HTTP status
 * @param headers extra headers, such as {@code retry-after}
 * @param body the JSON body
 */
record Reply(int status, Map<String, String> headers, String body) {

	static Reply json(int status, String body) {
		return new Reply(status, Map.of(), body);
	}

	Reply withHeader(String name, String value) {
		Map<String, String> headers = new LinkedHashMap<>(this.headers);
		headers.put(name, value);
		return new Reply(this.status, headers, this.body);
	}

}
