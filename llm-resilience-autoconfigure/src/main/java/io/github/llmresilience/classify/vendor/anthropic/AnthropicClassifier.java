package io.github.llmresilience.classify.vendor.anthropic;

import java.util.Map;

import io.github.llmresilience.classify.ClassifierSettings;
import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.vendor.Finding;
import io.github.llmresilience.classify.vendor.JsonBody;
import io.github.llmresilience.classify.vendor.VendorClassifier;
import org.jspecify.annotations.Nullable;

/**
 * Anthropic's Messages API: {@code {"type": "error", "error": {"type", "message",
 * "details": {"error_code"}}}}, 529 when overloaded, {@code event: error} inside a 200
 * stream, {@code stop_reason: refusal} for a safety refusal.
 */
final class AnthropicClassifier extends VendorClassifier {

	/** The provider's {@code error.type} values, as documented on its errors page. */
	static final Map<String, Outcome> TABLE = Map.ofEntries(Map.entry("invalid_request_error", Outcome.REQUEST),
			Map.entry("authentication_error", Outcome.CREDENTIAL), Map.entry("permission_error", Outcome.CREDENTIAL),
			Map.entry("billing_error", Outcome.QUOTA), Map.entry("not_found_error", Outcome.REQUEST),
			Map.entry("request_too_large", Outcome.REQUEST), Map.entry("rate_limit_error", Outcome.THROTTLED),
			Map.entry("api_error", Outcome.AVAILABILITY), Map.entry("overloaded_error", Outcome.AVAILABILITY),
			Map.entry("timeout_error", Outcome.AVAILABILITY));

	/** {@code error.details.error_code} values that outrank the type. */
	static final Map<String, Outcome> DETAIL_CODES = Map.of("enforced_spend_limit_reached", Outcome.QUOTA,
			"credit_balance_too_low", Outcome.QUOTA);

	private static final String[] SUCCESS_MARKERS = { "refusal", "\"error\"" };

	AnthropicClassifier(String provider, ClassifierSettings settings) {
		super(provider, settings);
	}

	@Override
	protected String[] successMarkers() {
		return SUCCESS_MARKERS;
	}

	@Override
	protected Finding error(int status, ProviderResponse response, @Nullable Object json) {
		Object root = JsonBody.unwrapArray(json);
		return read(status, JsonBody.member(root, "error"));
	}

	@Override
	protected @Nullable Finding successBody(@Nullable Object json, String body) {
		Object root = JsonBody.unwrapArray(json);
		if ("refusal".equals(JsonBody.text(root, "stop_reason"))) {
			return refusal("refusal");
		}
		if ("error".equals(JsonBody.text(root, "type"))) {
			return read(200, JsonBody.member(root, "error"));
		}
		return null;
	}

	@Override
	protected @Nullable Finding streamEvent(@Nullable String event, @Nullable Object json, String data) {
		if ("error".equals(event) || "error".equals(JsonBody.text(json, "type"))) {
			return read(200, JsonBody.member(json, "error"));
		}
		if ("refusal".equals(JsonBody.text(json, "delta", "stop_reason"))
				|| "refusal".equals(JsonBody.text(json, "message", "stop_reason"))) {
			return refusal("refusal");
		}
		return null;
	}

	/**
	 * Also used by Vertex AI and Bedrock, which serve Claude with this body shape,
	 * through {@link Anthropic#readError}.
	 */
	static Finding read(int status, @Nullable Object error) {
		String type = JsonBody.text(error, "type");
		String detail = JsonBody.text(error, "details", "error_code");
		String message = JsonBody.text(error, "message");
		Outcome fromTable = (detail != null) ? DETAIL_CODES.get(detail) : null;
		if (fromTable == null && type != null) {
			fromTable = TABLE.get(type);
		}
		// Prepaid credits run out as a 400 invalid_request_error; only the message tells.
		if (fromTable == Outcome.REQUEST && contains(message, "credit balance is too low")) {
			fromTable = Outcome.QUOTA;
		}
		String errorType = (fromTable == Outcome.QUOTA && detail != null) ? detail : firstText(type, detail);
		return decide(status, fromTable, errorType, message);
	}

}
