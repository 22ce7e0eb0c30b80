package io.github.llmresilience.classify.vendor.bedrock;

import java.util.Locale;
import java.util.Map;
import java.util.Set;

import io.github.llmresilience.classify.ClassifierSettings;
import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.vendor.Finding;
import io.github.llmresilience.classify.vendor.JsonBody;
import io.github.llmresilience.classify.vendor.VendorClassifier;
import io.github.llmresilience.classify.vendor.anthropic.Anthropic;
import org.jspecify.annotations.Nullable;

/**
 * Amazon Bedrock Runtime: the error type is the {@code x-amzn-ErrorType} header (cut at
 * its first {@code :}) or the body's {@code __type}, the body is only
 * {@code {"message"}}; stream failures are event-stream messages named by their
 * {@code :exception-type}. Claude on Bedrock answers with Anthropic's body shape.
 */
final class BedrockClassifier extends VendorClassifier {

	/** Exception names from the bedrock-runtime service model, in lower case. */
	static final Map<String, Outcome> TABLE = Map.ofEntries(Map.entry("throttlingexception", Outcome.THROTTLED),
			Map.entry("toomanyrequestsexception", Outcome.THROTTLED),
			Map.entry("servicequotaexceededexception", Outcome.QUOTA),
			Map.entry("modelnotreadyexception", Outcome.AVAILABILITY),
			Map.entry("serviceunavailableexception", Outcome.AVAILABILITY),
			Map.entry("internalserverexception", Outcome.AVAILABILITY),
			Map.entry("internalfailure", Outcome.AVAILABILITY),
			Map.entry("modeltimeoutexception", Outcome.AVAILABILITY),
			Map.entry("modelstreamerrorexception", Outcome.AVAILABILITY),
			Map.entry("modelerrorexception", Outcome.AVAILABILITY), Map.entry("validationexception", Outcome.REQUEST),
			Map.entry("resourcenotfoundexception", Outcome.REQUEST), Map.entry("conflictexception", Outcome.REQUEST),
			Map.entry("accessdeniedexception", Outcome.CREDENTIAL),
			Map.entry("unrecognizedclientexception", Outcome.CREDENTIAL),
			Map.entry("expiredtokenexception", Outcome.CREDENTIAL),
			Map.entry("invalidsignatureexception", Outcome.CREDENTIAL),
			Map.entry("incompletesignature", Outcome.CREDENTIAL),
			Map.entry("missingauthenticationtokenexception", Outcome.CREDENTIAL));

	private static final Set<String> REFUSAL_STOP = Set.of("guardrail_intervened", "content_filtered");

	private static final String[] SUCCESS_MARKERS = { "guardrail_intervened", "content_filtered", "INTERVENED",
			"refusal", "\"error\"" };

	BedrockClassifier(String provider, ClassifierSettings settings) {
		super(provider, settings);
	}

	@Override
	protected String[] successMarkers() {
		return SUCCESS_MARKERS;
	}

	@Override
	protected Finding error(int status, ProviderResponse response, @Nullable Object json) {
		Object root = JsonBody.unwrapArray(json);
		String type = errorType(response.header("x-amzn-errortype"));
		if (type == null) {
			type = errorType(JsonBody.text(root, "__type"));
		}
		if (type == null && "error".equals(JsonBody.text(root, "type"))) {
			return Anthropic.readError(status, JsonBody.member(root, "error"));
		}
		String message = firstText(JsonBody.text(root, "message"), JsonBody.text(root, "Message"));
		return decide(status, lookup(type), type, message);
	}

	@Override
	protected @Nullable Finding successBody(@Nullable Object json, String body) {
		Object root = JsonBody.unwrapArray(json);
		if (refused(root)) {
			return refusal(firstText(JsonBody.text(root, "stopReason"), "guardrail_intervened"));
		}
		if ("refusal".equals(JsonBody.text(root, "stop_reason"))) {
			return refusal("refusal");
		}
		return null;
	}

	@Override
	protected @Nullable Finding streamEvent(@Nullable String event, @Nullable Object json, String data) {
		String type = errorType(event);
		Outcome fromTable = lookup(type);
		if (fromTable != null || (type != null && type.toLowerCase(Locale.ROOT).endsWith("exception"))) {
			String message = firstText(JsonBody.text(json, "message"), JsonBody.text(json, "Message"));
			return embeddedError(fromTable, type, message, null);
		}
		if (refused(json) || refused(JsonBody.member(json, "messageStop"))) {
			return refusal("guardrail_intervened");
		}
		return null;
	}

	private static boolean refused(@Nullable Object root) {
		String stop = JsonBody.text(root, "stopReason");
		return (stop != null && REFUSAL_STOP.contains(stop))
				|| "INTERVENED".equals(JsonBody.text(root, "amazon-bedrock-guardrailAction"));
	}

	private static @Nullable Outcome lookup(@Nullable String type) {
		return (type != null) ? TABLE.get(type.toLowerCase(Locale.ROOT)) : null;
	}

	/**
	 * "ThrottlingException:http://internal.amazon.com/..." and
	 * "com.amazon.coral#ThrottlingException".
	 */
	private static @Nullable String errorType(@Nullable String raw) {
		if (raw == null || raw.isBlank()) {
			return null;
		}
		String type = raw.trim();
		int colon = type.indexOf(':');
		if (colon > 0) {
			type = type.substring(0, colon);
		}
		int hash = type.lastIndexOf('#');
		if (hash >= 0) {
			type = type.substring(hash + 1);
		}
		return type.isEmpty() ? null : type;
	}

}
