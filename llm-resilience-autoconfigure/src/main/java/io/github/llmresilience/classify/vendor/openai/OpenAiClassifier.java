package io.github.llmresilience.classify.vendor.openai;

import java.util.Map;
import java.util.Set;

import io.github.llmresilience.classify.ClassifierSettings;
import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.vendor.Finding;
import io.github.llmresilience.classify.vendor.JsonBody;
import io.github.llmresilience.classify.vendor.VendorClassifier;
import org.jspecify.annotations.Nullable;

/**
 * OpenAI and the APIs shaped like it: Azure OpenAI, Mistral, and OpenAI-compatible
 * services (Groq, DeepSeek, Together, ...). Errors are {@code {"error": {"type", "code",
 * "message"}}}, or the same fields at the top level (Mistral).
 */
final class OpenAiClassifier extends VendorClassifier {

	/**
	 * The provider's {@code error.code} or {@code error.type} values; code is read first.
	 */
	static final Map<String, Outcome> TABLE = Map.ofEntries(
			// quota: the account is out until a reset or a payment
			Map.entry("insufficient_quota", Outcome.QUOTA), Map.entry("billing_hard_limit_reached", Outcome.QUOTA),
			Map.entry("billing_not_active", Outcome.QUOTA), Map.entry("insufficient_balance", Outcome.QUOTA),
			// rate limits of this quota scope
			Map.entry("rate_limit_exceeded", Outcome.THROTTLED), Map.entry("rate_limit_error", Outcome.THROTTLED),
			Map.entry("rate_limited", Outcome.THROTTLED), Map.entry("tokens", Outcome.THROTTLED),
			Map.entry("requests", Outcome.THROTTLED), Map.entry("tokens_usage_based", Outcome.THROTTLED),
			Map.entry("429", Outcome.THROTTLED),
			// credentials and entitlement
			Map.entry("invalid_api_key", Outcome.CREDENTIAL), Map.entry("invalid_authentication", Outcome.CREDENTIAL),
			Map.entry("authentication_error", Outcome.CREDENTIAL), Map.entry("access_terminated", Outcome.CREDENTIAL),
			Map.entry("unsupported_country_region_territory", Outcome.CREDENTIAL),
			Map.entry("invalid_organization", Outcome.CREDENTIAL),
			Map.entry("no_such_organization", Outcome.CREDENTIAL), Map.entry("PermissionDenied", Outcome.CREDENTIAL),
			Map.entry("permission_error", Outcome.CREDENTIAL), Map.entry("401", Outcome.CREDENTIAL),
			Map.entry("403", Outcome.CREDENTIAL),
			// the request itself
			Map.entry("context_length_exceeded", Outcome.REQUEST), Map.entry("invalid_request_error", Outcome.REQUEST),
			Map.entry("model_not_found", Outcome.REQUEST), Map.entry("invalid_model", Outcome.REQUEST),
			Map.entry("string_above_max_length", Outcome.REQUEST), Map.entry("invalid_value", Outcome.REQUEST),
			Map.entry("invalid_type", Outcome.REQUEST), Map.entry("unsupported_value", Outcome.REQUEST),
			Map.entry("unsupported_parameter", Outcome.REQUEST),
			Map.entry("missing_required_parameter", Outcome.REQUEST), Map.entry("not_found_error", Outcome.REQUEST),
			Map.entry("DeploymentNotFound", Outcome.REQUEST), Map.entry("OperationNotSupported", Outcome.REQUEST),
			Map.entry("BadRequest", Outcome.REQUEST), Map.entry("404", Outcome.REQUEST),
			Map.entry("400", Outcome.REQUEST),
			// safety refusals
			Map.entry("content_filter", Outcome.CONTENT_FILTER),
			Map.entry("content_policy_violation", Outcome.CONTENT_FILTER),
			Map.entry("invalid_prompt", Outcome.CONTENT_FILTER),
			Map.entry("ResponsibleAIPolicyViolation", Outcome.CONTENT_FILTER),
			// the provider is unwell
			Map.entry("server_error", Outcome.AVAILABILITY), Map.entry("internal_error", Outcome.AVAILABILITY),
			Map.entry("internal_server_error", Outcome.AVAILABILITY),
			Map.entry("service_unavailable", Outcome.AVAILABILITY), Map.entry("api_error", Outcome.AVAILABILITY),
			Map.entry("overloaded_error", Outcome.AVAILABILITY), Map.entry("engine_overloaded", Outcome.AVAILABILITY),
			Map.entry("server_overloaded", Outcome.AVAILABILITY), Map.entry("timeout", Outcome.AVAILABILITY),
			// Azure's Responses API stream errors: no_capacity is the shared pool at peak
			// load, too_many_requests its translation of a 429
			Map.entry("no_capacity", Outcome.AVAILABILITY), Map.entry("too_many_requests", Outcome.THROTTLED),
			Map.entry("500", Outcome.AVAILABILITY), Map.entry("502", Outcome.AVAILABILITY),
			Map.entry("503", Outcome.AVAILABILITY));

	private static final Set<String> REFUSAL_FINISH = Set.of("content_filter");

	private static final String[] SUCCESS_MARKERS = { "content_filter", "\"error\"", "\"failed\"" };

	private final OpenAiProfile profile;

	OpenAiClassifier(OpenAiProfile profile, ClassifierSettings settings) {
		super(profile.id(), settings);
		this.profile = profile;
	}

	@Override
	protected @Nullable Outcome statusMeaning(int status) {
		return this.profile.statuses().get(status);
	}

	@Override
	protected String[] successMarkers() {
		return SUCCESS_MARKERS;
	}

	@Override
	protected Finding error(int status, ProviderResponse response, @Nullable Object json) {
		if (json == null) {
			// A page from a proxy or CDN, or plain text: its words are all there is.
			return decide(status, null, null, pageText(response.body()));
		}
		Object error = envelope(JsonBody.unwrapArray(json));
		return read(status, error);
	}

	@Override
	protected @Nullable Finding successBody(@Nullable Object json, String body) {
		Object root = JsonBody.unwrapArray(json);
		if (refused(root)) {
			return refusal("content_filter");
		}
		// Responses API: {"status": "failed", "error": {...}}; proxies: 200 {"error":
		// {...}}
		Object error = JsonBody.member(root, "error");
		if ((error instanceof Map<?, ?> || error instanceof String) && JsonBody.member(root, "choices") == null) {
			return read(200, envelope(root));
		}
		return null;
	}

	@Override
	protected @Nullable Finding streamEvent(@Nullable String event, @Nullable Object json, String data) {
		if (json == null) {
			return "error".equals(event) ? embeddedError(null, null, data, null) : null;
		}
		String type = JsonBody.text(json, "type");
		// Chat completions: data: {"error": {...}}; TGI and Ollama: {"error": "..."}
		Object error = JsonBody.member(json, "error");
		if (error instanceof Map<?, ?> && !"response.failed".equals(type)) {
			return read(200, error);
		}
		if (error instanceof String) {
			return read(200, json);
		}
		// Responses API: event: error, data: {"type": "error", "code", "message"}
		if ("error".equals(event) || "error".equals(type)) {
			return read(200, json);
		}
		if ("response.failed".equals(type) || "response.failed".equals(event)) {
			Object failed = JsonBody.at(json, "response", "error");
			return (failed != null) ? read(200, failed) : embeddedError(null, "response.failed", null, null);
		}
		if (refused(json) || refused(JsonBody.member(json, "response"))) {
			return refusal("content_filter");
		}
		return null;
	}

	private Finding read(int status, @Nullable Object error) {
		String code = JsonBody.text(error, "code");
		String type = JsonBody.text(error, "type");
		String inner = JsonBody.text(error, "innererror", "code");
		String kind = JsonBody.text(error, "error_type");
		String message = message(error);
		// The first specific code the tables know decides; else the first generic one.
		String deciding = null;
		Outcome fromTable = null;
		for (String candidate : new String[] { inner, code, type, kind }) {
			Outcome outcome = lookup(candidate);
			if (outcome != null && (deciding == null || (isGeneric(deciding) && !isGeneric(candidate)))) {
				deciding = candidate;
				fromTable = outcome;
			}
		}
		// A numeric code (Mistral's "1300") says less than the type beside it.
		String errorType = (code != null && !isNumeric(code)) ? code : firstText(type, kind, code);
		if (code != null && isNumeric(code) && code.length() > 3 && fromTable != null && code.equals(deciding)) {
			errorType = code;
		}
		return decide(status, fromTable, deciding, errorType, message);
	}

	/**
	 * The message: {@code message}, a string {@code error} (xAI, Ollama, TGI), a string
	 * {@code detail} or {@code detail.error} (DeepInfra, FastAPI servers); an upstream's
	 * raw text behind OpenRouter ({@code metadata.raw}) is read beside it.
	 */
	private static @Nullable String message(@Nullable Object error) {
		String message = firstText(JsonBody.text(error, "message"), stringMember(error, "error"),
				stringMember(error, "detail"), JsonBody.text(error, "detail", "error"),
				JsonBody.text(error, "detail", "message"), JsonBody.text(error, "Message"));
		String raw = JsonBody.text(error, "metadata", "raw");
		if (raw != null && !raw.isBlank()) {
			return (message != null) ? message + " " + raw : raw;
		}
		return message;
	}

	/**
	 * What a page that is not JSON says: an HTML page's title ("api.anthropic.com | 520:
	 * Web server is returning an unknown error"), else its first 512 characters.
	 */
	static @Nullable String pageText(String body) {
		if (body.isBlank()) {
			return null;
		}
		int head = Math.min(body.length(), 2048);
		int title = indexOfIgnoreCase(body, "<title", head);
		if (title >= 0) {
			int start = body.indexOf('>', title);
			int stop = (start >= 0) ? indexOfIgnoreCase(body, "</title", head) : -1;
			if (start >= 0 && stop > start) {
				return body.substring(start + 1, stop);
			}
		}
		return body.substring(0, Math.min(body.length(), 512));
	}

	private static int indexOfIgnoreCase(String text, String part, int end) {
		for (int i = 0; i + part.length() <= end; i++) {
			if (text.regionMatches(true, i, part, 0, part.length())) {
				return i;
			}
		}
		return -1;
	}

	private static @Nullable String stringMember(@Nullable Object node, String name) {
		Object value = JsonBody.member(node, name);
		return (value instanceof String text) ? text : null;
	}

	/**
	 * The error object: {@code error} when it is one (twice nested at OpenRouter), else
	 * the body itself.
	 */
	private static @Nullable Object envelope(@Nullable Object root) {
		Object error = JsonBody.member(root, "error");
		if (error instanceof Map<?, ?>) {
			Object nested = JsonBody.member(error, "error");
			return (nested instanceof Map<?, ?>) ? nested : error;
		}
		return root;
	}

	private static boolean refused(@Nullable Object root) {
		if (allMatch(JsonBody.array(root, "choices"), "finish_reason", REFUSAL_FINISH)) {
			return true;
		}
		return "content_filter".equals(JsonBody.text(root, "incomplete_details", "reason"));
	}

	private @Nullable Outcome lookup(@Nullable String key) {
		if (key == null) {
			return null;
		}
		Outcome own = this.profile.codes().get(key);
		return (own != null) ? own : TABLE.get(key);
	}

	private static boolean isNumeric(String text) {
		for (int i = 0; i < text.length(); i++) {
			if (!Character.isDigit(text.charAt(i))) {
				return false;
			}
		}
		return !text.isEmpty();
	}

}
