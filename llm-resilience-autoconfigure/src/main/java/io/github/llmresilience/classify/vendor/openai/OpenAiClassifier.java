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

	OpenAiClassifier(String provider, ClassifierSettings settings) {
		super(provider, settings);
	}

	@Override
	protected String[] successMarkers() {
		return SUCCESS_MARKERS;
	}

	@Override
	protected Finding error(int status, ProviderResponse response, @Nullable Object json) {
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
		if (error instanceof Map<?, ?> && JsonBody.member(root, "choices") == null) {
			return read(200, error);
		}
		return null;
	}

	@Override
	protected @Nullable Finding streamEvent(@Nullable String event, @Nullable Object json, String data) {
		if (json == null) {
			return "error".equals(event) ? embeddedError(null, null, data, null) : null;
		}
		String type = JsonBody.text(json, "type");
		// Chat completions: data: {"error": {...}}
		Object error = JsonBody.member(json, "error");
		if (error instanceof Map<?, ?> && !"response.failed".equals(type)) {
			return read(200, error);
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
		String message = JsonBody.text(error, "message");
		Outcome fromTable = lookup(inner);
		if (fromTable == null) {
			fromTable = lookup(code);
		}
		if (fromTable == null) {
			fromTable = lookup(type);
		}
		// A numeric code (Mistral's "1300") says less than the type beside it.
		String errorType = (code != null && !isNumeric(code)) ? code : firstText(type, code);
		return decide(status, fromTable, errorType, message);
	}

	/** The error object: {@code error} when present, else the body itself (Mistral). */
	private static @Nullable Object envelope(@Nullable Object root) {
		Object error = JsonBody.member(root, "error");
		if (error instanceof Map<?, ?>) {
			return error;
		}
		return root;
	}

	private static boolean refused(@Nullable Object root) {
		if (allMatch(JsonBody.array(root, "choices"), "finish_reason", REFUSAL_FINISH)) {
			return true;
		}
		return "content_filter".equals(JsonBody.text(root, "incomplete_details", "reason"));
	}

	private static @Nullable Outcome lookup(@Nullable String key) {
		return (key != null) ? TABLE.get(key) : null;
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
