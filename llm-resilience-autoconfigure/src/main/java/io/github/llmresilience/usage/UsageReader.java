package io.github.llmresilience.usage;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.vendor.UsageFields;
import io.github.llmresilience.classify.vendor.Vendor;
import io.github.llmresilience.classify.vendor.Vendors;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;

/**
 * Reads the token usage a provider reports in an answer's body, one stream event or its
 * headers, with Jackson's streaming parser: the answer's text is skipped, not decoded, so
 * a long answer costs a scan, not a tree.
 *
 * <p>
 * The usage object is looked for where the {@link Vendors#REGISTERED registered} vendors
 * put it ({@link Vendor#usageFields()}), at most three levels deep: {@code usage} (OpenAI
 * chat completions and responses, Azure OpenAI, Mistral, Anthropic, Bedrock's Converse,
 * Cohere v2), inside {@code message} (Anthropic's {@code message_start} event) or
 * {@code response} (OpenAI's {@code response.completed} event), {@code usageMetadata}
 * (Gemini and Vertex AI), and {@code meta.billed_units} (Cohere v1). Its counts are read
 * by the names those vendors use:
 * <ul>
 * <li>input: {@code prompt_tokens}, {@code input_tokens}, {@code inputTokens},
 * {@code promptTokenCount}, plus Anthropic's {@code cache_creation_input_tokens} and
 * {@code cache_read_input_tokens} and Gemini's {@code toolUsePromptTokenCount}, which
 * those vendors report apart from the input;</li>
 * <li>output: {@code completion_tokens}, {@code output_tokens}, {@code outputTokens},
 * {@code candidatesTokenCount}, plus Gemini's {@code thoughtsTokenCount}, reported apart
 * from the candidates.</li>
 * </ul>
 * Where a Cohere v2 usage holds both {@code billed_units} and {@code tokens}, the billed
 * units count. With no usage in the body, Bedrock's InvokeModel headers
 * ({@code x-amzn-bedrock-input-token-count}, {@code x-amzn-bedrock-output-token-count})
 * are read.
 *
 * <p>
 * Garbage never throws: a malformed body, a count that is negative, fractional, not a
 * number or past a {@code long} is not read, and a body with no usage yields
 * {@code null}.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public final class UsageReader {

	private static final int MAX_DEPTH = 64;

	/** How deep a usage object may be: the root's members are at depth 1. */
	private static final int MAX_USAGE_DEPTH = 3;

	private static final JsonFactory JSON = JsonFactory.builder()
		.streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build())
		.build();

	/** Every registered vendor's usage fields, in registration order. */
	private static final List<UsageFields> FIELDS = Vendors.distinct(Vendor::usageFields);

	private static final Set<String> CONTAINERS = union(FIELDS, UsageFields::containers);

	private static final Map<String, Set<String>> NESTED_CONTAINERS = nested(FIELDS);

	private static final Set<String> PREFERRED = union(FIELDS, UsageFields::preferred);

	private static final Set<String> INPUT = union(FIELDS, UsageFields::input);

	private static final Set<String> OUTPUT = union(FIELDS, UsageFields::output);

	/** The container names: a body that names none of them is not parsed. */
	private static final String[] MARKERS = markers();

	private UsageReader() {
	}

	/**
	 * The usage an answer or stream event reports.
	 * @param answer the answer or stream event
	 * @return the usage, or {@code null} when none is reported
	 */
	public static @Nullable Usage read(ProviderResponse answer) {
		return read(answer.body(), answer.headers());
	}

	/**
	 * The usage an answer reports in its body or, failing that, its headers.
	 * @param body a JSON answer or event data, whole or cut (may be {@code null})
	 * @param headers its headers, names case-insensitive
	 * @return the usage, or {@code null} when none is reported
	 */
	public static @Nullable Usage read(@Nullable String body, Map<String, List<String>> headers) {
		Usage usage = read(body);
		return (usage != null) ? usage : fromHeaders(headers);
	}

	/**
	 * The usage a body reports.
	 * @param body a JSON answer or event data, whole or cut (may be {@code null})
	 * @return the usage, or {@code null} when none is reported
	 */
	public static @Nullable Usage read(@Nullable String body) {
		if (body == null || body.isEmpty() || !mayHoldUsage(body)) {
			return null;
		}
		try (JsonParser parser = JSON.createParser(ObjectReadContext.empty(), body)) {
			if (parser.nextToken() != JsonToken.START_OBJECT) {
				return null;
			}
			return object(parser, 1, null);
		}
		catch (RuntimeException ex) {
			// Malformed, cut, or past a limit: no usage is read from it.
			return null;
		}
	}

	/**
	 * Whether the text names a usage container at all: most stream events do not, and are
	 * not parsed.
	 */
	private static boolean mayHoldUsage(String body) {
		for (String marker : MARKERS) {
			if (body.contains(marker)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Scan an object whose {@code START_OBJECT} was read, looking for a usage container.
	 * @return the first usage found, or {@code null}
	 */
	private static @Nullable Usage object(JsonParser parser, int depth, @Nullable String parent) {
		Usage found = null;
		JsonToken token;
		while ((token = parser.nextToken()) == JsonToken.PROPERTY_NAME) {
			String name = parser.currentName();
			JsonToken value = parser.nextToken();
			if (value == JsonToken.START_OBJECT) {
				if (found == null && isContainer(name, parent)) {
					found = counts(parser);
				}
				else if (found == null && depth < MAX_USAGE_DEPTH) {
					found = object(parser, depth + 1, name);
				}
				else {
					parser.skipChildren();
				}
			}
			else if (value == JsonToken.START_ARRAY) {
				parser.skipChildren();
			}
		}
		return found;
	}

	private static boolean isContainer(String name, @Nullable String parent) {
		if (CONTAINERS.contains(name)) {
			return true;
		}
		Set<String> parents = NESTED_CONTAINERS.get(name);
		return parents != null && parent != null && parents.contains(parent);
	}

	/** Read the counts of a usage object whose {@code START_OBJECT} was read. */
	private static @Nullable Usage counts(JsonParser parser) {
		long input = 0;
		long output = 0;
		boolean any = false;
		Usage billed = null;
		JsonToken token;
		while ((token = parser.nextToken()) == JsonToken.PROPERTY_NAME) {
			String name = parser.currentName();
			JsonToken value = parser.nextToken();
			if (value == JsonToken.START_OBJECT) {
				if (PREFERRED.contains(name)) {
					billed = counts(parser);
				}
				else {
					parser.skipChildren();
				}
				continue;
			}
			if (value == JsonToken.START_ARRAY) {
				parser.skipChildren();
				continue;
			}
			long count = count(parser, value);
			if (count < 0) {
				continue;
			}
			if (INPUT.contains(name)) {
				input = add(input, count);
				any = true;
			}
			else if (OUTPUT.contains(name)) {
				output = add(output, count);
				any = true;
			}
		}
		if (billed != null) {
			return billed;
		}
		return any ? new Usage(input, output) : null;
	}

	/** A whole, non-negative count within a {@code long}, else -1. */
	private static long count(JsonParser parser, JsonToken value) {
		if (value != JsonToken.VALUE_NUMBER_INT) {
			return -1;
		}
		try {
			if (parser.getNumberType() != JsonParser.NumberType.INT
					&& parser.getNumberType() != JsonParser.NumberType.LONG) {
				return -1;
			}
			long count = parser.getLongValue();
			return (count >= 0) ? count : -1;
		}
		catch (RuntimeException ex) {
			return -1;
		}
	}

	private static long add(long a, long b) {
		long sum = a + b;
		return (sum < 0) ? Long.MAX_VALUE : sum;
	}

	private static @Nullable Usage fromHeaders(Map<String, List<String>> headers) {
		for (UsageFields fields : FIELDS) {
			long input = header(headers, fields.inputHeader());
			long output = header(headers, fields.outputHeader());
			if (input >= 0 || output >= 0) {
				return new Usage(Math.max(input, 0), Math.max(output, 0));
			}
		}
		return null;
	}

	private static long header(Map<String, List<String>> headers, @Nullable String name) {
		if (name == null) {
			return -1;
		}
		List<String> values = headers.get(name);
		if (values == null || values.isEmpty() || values.get(0) == null) {
			return -1;
		}
		try {
			long value = Long.parseLong(values.get(0).trim());
			return (value >= 0) ? value : -1;
		}
		catch (NumberFormatException ex) {
			return -1;
		}
	}

	private static Set<String> union(List<UsageFields> fields, Function<UsageFields, Set<String>> part) {
		Set<String> union = new HashSet<>();
		fields.forEach((each) -> union.addAll(part.apply(each)));
		return Set.copyOf(union);
	}

	private static Map<String, Set<String>> nested(List<UsageFields> fields) {
		Map<String, Set<String>> nested = new HashMap<>();
		for (UsageFields each : fields) {
			each.nestedContainers()
				.forEach((name, parents) -> nested.computeIfAbsent(name, (key) -> new HashSet<>()).addAll(parents));
		}
		Map<String, Set<String>> copy = new HashMap<>();
		nested.forEach((name, parents) -> copy.put(name, Set.copyOf(parents)));
		return Map.copyOf(copy);
	}

	private static String[] markers() {
		Set<String> markers = new HashSet<>(CONTAINERS);
		markers.addAll(NESTED_CONTAINERS.keySet());
		return markers.toArray(String[]::new);
	}

}
