package io.github.llmresilience.classify;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * Loads provider error cases from the fixture files and turns each into the
 * {@link ProviderResponse} a client would have built from it.
 */
public final class Fixtures {

	private static final ObjectMapper JSON = JsonMapper.builder().build();

	private Fixtures() {
	}

	/** One fixture case. */
	public record Case(String id, String provider, int status, Map<String, List<String>> headers, JsonNode body,
			boolean stream, Outcome expected, List<Outcome> accept, Long retryAfterMs) {

		/** Every outcome this case may be classified as. */
		public List<Outcome> acceptable() {
			List<Outcome> all = new ArrayList<>(this.accept);
			all.add(0, this.expected);
			return all;
		}

		/** The body as the client received it: raw text as is, JSON serialized. */
		public String bodyText() {
			return this.body.isString() ? this.body.asString() : JSON.writeValueAsString(this.body);
		}

		/** Whether this is one Bedrock event-stream message rather than an HTTP body. */
		public boolean isEventStreamMessage() {
			return this.stream && this.body.isObject() && this.body.has("eventHeaders");
		}

		public ProviderResponse response() {
			if (isEventStreamMessage()) {
				JsonNode headers = this.body.get("eventHeaders");
				String type = headers.has(":exception-type") ? headers.get(":exception-type").asString()
						: headers.path(":event-type").asString(null);
				return ProviderResponse.streamEvent(type, JSON.writeValueAsString(this.body.get("payload")));
			}
			return ProviderResponse.of(this.status, this.headers, bodyText());
		}

		@Override
		public String toString() {
			return this.id;
		}

	}

	public static List<Case> vendorErrors() {
		return load("/fixtures/vendor-errors.json");
	}

	public static List<Case> extraVendorErrors() {
		return load("/fixtures/extra-vendor-errors.json");
	}

	public static List<Case> load(String resource) {
		try (InputStream in = Fixtures.class.getResourceAsStream(resource)) {
			if (in == null) {
				throw new IllegalStateException("Missing test resource " + resource);
			}
			List<Case> cases = new ArrayList<>();
			for (JsonNode node : JSON.readTree(in)) {
				Map<String, List<String>> headers = new LinkedHashMap<>();
				node.path("headers")
					.properties()
					.forEach((entry) -> headers.put(entry.getKey(), List.of(entry.getValue().asString())));
				List<Outcome> accept = new ArrayList<>();
				node.path("accept").forEach((value) -> accept.add(Outcome.valueOf(value.asString())));
				JsonNode retryAfter = node.get("retryAfterMs");
				cases.add(new Case(node.get("id").asString(), node.get("vendor").asString(), node.get("status").asInt(),
						headers, node.get("body"), node.path("stream").asBoolean(false),
						Outcome.valueOf(node.get("expected").asString()), accept,
						(retryAfter == null || retryAfter.isNull()) ? null : retryAfter.asLong()));
			}
			return cases;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
