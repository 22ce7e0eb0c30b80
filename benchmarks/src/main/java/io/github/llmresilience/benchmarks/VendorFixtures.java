package io.github.llmresilience.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.ProviderResponse;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * The provider error cases of {@code shared/fixtures/vendor-errors.json}, each turned
 * into the {@link ProviderResponse} a client would have built from it. The benchmark jar
 * holds a copy; a path to another file of the same shape may be given instead.
 */
final class VendorFixtures {

	/** The copy in this module's resources. */
	static final String BUNDLED = "/fixtures/vendor-errors.json";

	private static final ObjectMapper JSON = JsonMapper.builder().build();

	private VendorFixtures() {
	}

	/**
	 * One case.
	 *
	 * @param id the case's id
	 * @param vendor the vendor id whose classifier handles it
	 * @param expected the outcome the classifier must return
	 * @param accept the other outcomes that are defensible for it
	 * @param response the answer as a client would have built it
	 */
	record Case(String id, String vendor, Outcome expected, List<Outcome> accept, ProviderResponse response) {

		boolean accepts(Outcome outcome) {
			return this.expected == outcome || this.accept.contains(outcome);
		}

	}

	/**
	 * Load the cases.
	 * @param path a file of cases, or {@code null} or empty for the bundled copy
	 * @return the cases, in file order
	 */
	static List<Case> load(@Nullable String path) {
		try (InputStream in = (path == null || path.isBlank()) ? VendorFixtures.class.getResourceAsStream(BUNDLED)
				: Files.newInputStream(Path.of(path))) {
			if (in == null) {
				throw new IllegalStateException("Missing resource " + BUNDLED);
			}
			List<Case> cases = new ArrayList<>();
			for (JsonNode node : JSON.readTree(in)) {
				List<Outcome> accept = new ArrayList<>();
				node.path("accept").forEach((value) -> accept.add(Outcome.valueOf(value.asString())));
				cases.add(new Case(node.get("id").asString(), node.get("vendor").asString(),
						Outcome.valueOf(node.get("expected").asString()), List.copyOf(accept), response(node)));
			}
			return cases;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static ProviderResponse response(JsonNode node) {
		JsonNode body = node.get("body");
		boolean stream = node.path("stream").asBoolean(false);
		if (stream && body.isObject() && body.has("eventHeaders")) {
			// One message of Bedrock's binary event stream: its type header and JSON
			// payload.
			JsonNode headers = body.get("eventHeaders");
			String type = headers.has(":exception-type") ? headers.get(":exception-type").asString()
					: headers.path(":event-type").asString(null);
			return ProviderResponse.streamEvent(type, JSON.writeValueAsString(body.get("payload")));
		}
		Map<String, List<String>> headers = new LinkedHashMap<>();
		node.path("headers")
			.properties()
			.forEach((entry) -> headers.put(entry.getKey(), List.of(entry.getValue().asString())));
		String text = body.isString() ? body.asString() : JSON.writeValueAsString(body);
		return ProviderResponse.of(node.get("status").asInt(), headers, text);
	}

}
