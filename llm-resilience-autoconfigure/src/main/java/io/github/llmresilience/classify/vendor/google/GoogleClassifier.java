package io.github.llmresilience.classify.vendor.google;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.llmresilience.classify.ClassifierSettings;
import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.vendor.Finding;
import io.github.llmresilience.classify.vendor.JsonBody;
import io.github.llmresilience.classify.vendor.VendorClassifier;
import io.github.llmresilience.classify.vendor.WaitHints;
import io.github.llmresilience.classify.vendor.anthropic.Anthropic;
import org.jspecify.annotations.Nullable;

/**
 * Google's Gemini API and Vertex AI: {@code {"error": {"code", "message", "status",
 * "details": [...]}}}, sometimes wrapped in a JSON array. {@code details[].reason}
 * ({@code API_KEY_INVALID}), {@code QuotaFailure.violations[].quotaId}
 * ({@code ...PerDay...}) and {@code RetryInfo.retryDelay} say what the status alone
 * cannot. Vertex AI also serves Claude, whose errors keep Anthropic's shape.
 */
final class GoogleClassifier extends VendorClassifier {

	/** The canonical {@code error.status} values. */
	static final Map<String, Outcome> STATUS_TABLE = Map.ofEntries(Map.entry("INVALID_ARGUMENT", Outcome.REQUEST),
			Map.entry("OUT_OF_RANGE", Outcome.REQUEST), Map.entry("NOT_FOUND", Outcome.REQUEST),
			// The project may not use the model here: not entitled, billing or region.
			Map.entry("FAILED_PRECONDITION", Outcome.CREDENTIAL), Map.entry("UNAUTHENTICATED", Outcome.CREDENTIAL),
			Map.entry("PERMISSION_DENIED", Outcome.CREDENTIAL), Map.entry("RESOURCE_EXHAUSTED", Outcome.THROTTLED),
			Map.entry("INTERNAL", Outcome.AVAILABILITY), Map.entry("UNAVAILABLE", Outcome.AVAILABILITY),
			Map.entry("DEADLINE_EXCEEDED", Outcome.AVAILABILITY), Map.entry("ABORTED", Outcome.AVAILABILITY),
			Map.entry("UNKNOWN", Outcome.AVAILABILITY), Map.entry("CANCELLED", Outcome.AVAILABILITY));

	/** {@code ErrorInfo.reason} values that outrank the status. */
	static final Map<String, Outcome> REASON_TABLE = Map.ofEntries(Map.entry("API_KEY_INVALID", Outcome.CREDENTIAL),
			Map.entry("API_KEY_EXPIRED", Outcome.CREDENTIAL), Map.entry("API_KEY_SERVICE_BLOCKED", Outcome.CREDENTIAL),
			Map.entry("ACCESS_TOKEN_EXPIRED", Outcome.CREDENTIAL),
			Map.entry("ACCESS_TOKEN_SCOPE_INSUFFICIENT", Outcome.CREDENTIAL),
			Map.entry("SERVICE_DISABLED", Outcome.CREDENTIAL), Map.entry("CONSUMER_INVALID", Outcome.CREDENTIAL),
			Map.entry("BILLING_DISABLED", Outcome.QUOTA), Map.entry("RATE_LIMIT_EXCEEDED", Outcome.THROTTLED),
			Map.entry("API_KEY_HTTP_REFERRER_BLOCKED", Outcome.CREDENTIAL),
			Map.entry("API_KEY_IP_ADDRESS_BLOCKED", Outcome.CREDENTIAL),
			Map.entry("API_KEY_ANDROID_APP_BLOCKED", Outcome.CREDENTIAL),
			Map.entry("API_KEY_IOS_APP_BLOCKED", Outcome.CREDENTIAL),
			Map.entry("USER_PROJECT_DENIED", Outcome.CREDENTIAL),
			Map.entry("IAM_PERMISSION_DENIED", Outcome.CREDENTIAL), Map.entry("CONSUMER_SUSPENDED", Outcome.CREDENTIAL),
			Map.entry("RESOURCE_PROJECT_INVALID", Outcome.CREDENTIAL),
			Map.entry("LOCATION_POLICY_VIOLATED", Outcome.CREDENTIAL));

	private static final Set<String> REFUSAL_FINISH = Set.of("SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT",
			"SPII", "IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION");

	private static final String[] SUCCESS_MARKERS = { "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII",
			"blockReason", "\"error\"", "refusal" };

	private final boolean vertex;

	GoogleClassifier(String provider, ClassifierSettings settings) {
		super(provider, settings);
		this.vertex = provider.startsWith("vertex");
	}

	@Override
	protected String[] successMarkers() {
		return SUCCESS_MARKERS;
	}

	@Override
	protected Finding error(int status, ProviderResponse response, @Nullable Object json) {
		Object root = JsonBody.unwrapArray(json);
		if (isClaudeShape(root)) {
			return Anthropic.readError(status, JsonBody.member(root, "error"));
		}
		return read(status, JsonBody.member(root, "error"));
	}

	@Override
	protected @Nullable Finding successBody(@Nullable Object json, String body) {
		// streamGenerateContent without SSE answers a JSON array of chunks.
		if (json == null) {
			// A marker in a body that is not JSON: nothing to read, the status stands.
			return null;
		}
		List<@Nullable Object> chunks = (json instanceof List<?> list) ? asObjects(list) : List.of(json);
		for (Object chunk : chunks) {
			Finding finding = chunk(chunk);
			if (finding != null) {
				return finding;
			}
		}
		return null;
	}

	@Override
	protected @Nullable Finding streamEvent(@Nullable String event, @Nullable Object json, String data) {
		Object root = JsonBody.unwrapArray(json);
		if (isClaudeShape(root) || "error".equals(event)) {
			return Anthropic.readError(200, JsonBody.member(root, "error"));
		}
		return chunk(root);
	}

	private @Nullable Finding chunk(@Nullable Object chunk) {
		if (JsonBody.member(chunk, "error") instanceof Map<?, ?> error) {
			return read(200, error);
		}
		if ("refusal".equals(JsonBody.text(chunk, "stop_reason"))) {
			return refusal("refusal");
		}
		String blockReason = JsonBody.text(chunk, "promptFeedback", "blockReason");
		if (blockReason != null && !blockReason.isEmpty() && !"BLOCKED_REASON_UNSPECIFIED".equals(blockReason)) {
			return refusal(blockReason);
		}
		List<@Nullable Object> candidates = JsonBody.array(chunk, "candidates");
		if (allMatch(candidates, "finishReason", REFUSAL_FINISH)) {
			return refusal(JsonBody.text(candidates.get(0), "finishReason"));
		}
		return null;
	}

	private Finding read(int status, @Nullable Object error) {
		String canonical = JsonBody.text(error, "status");
		String message = JsonBody.text(error, "message");
		String reason = null;
		List<String> quotaIds = new ArrayList<>();
		Duration retryDelay = null;
		for (Object detail : JsonBody.array(error, "details")) {
			String kind = JsonBody.text(detail, "@type");
			if (kind == null) {
				continue;
			}
			if (kind.endsWith("ErrorInfo")) {
				reason = firstText(reason, JsonBody.text(detail, "reason"));
			}
			else if (kind.endsWith("QuotaFailure")) {
				for (Object violation : JsonBody.array(detail, "violations")) {
					String quotaId = firstText(JsonBody.text(violation, "quotaId"),
							JsonBody.text(violation, "quotaMetric"));
					if (quotaId != null) {
						quotaIds.add(quotaId);
					}
				}
			}
			else if (kind.endsWith("RetryInfo")) {
				retryDelay = WaitHints.goDuration(JsonBody.text(detail, "retryDelay"));
			}
		}
		String legacyReason = null;
		for (Object legacy : JsonBody.array(error, "errors")) {
			legacyReason = firstText(legacyReason, JsonBody.text(legacy, "reason"));
		}
		String errorType = firstText(reason, canonical, legacyReason);
		Outcome fromReason = (reason != null) ? REASON_TABLE.get(reason) : null;
		Finding finding;
		boolean neverClears = contains(message, "limit: 0");
		if (fromReason != null && fromReason != Outcome.THROTTLED) {
			// ErrorInfo's reason is Google's specific code: it outranks everything else.
			finding = decide(status, fromReason, reason, errorType, message);
		}
		else if (!quotaIds.isEmpty() || neverClears) {
			// QuotaFailure names the limits hit: a per-day one is a quota, a per-minute
			// one
			// a throttle, whatever the message's words.
			finding = byQuotaIds(status, quotaIds, errorType, message, neverClears);
		}
		else if (fromReason != null) {
			finding = decide(status, exhausted(quotaIds, message, legacyReason), reason, errorType, message);
		}
		else {
			Outcome fromStatus = (canonical != null) ? STATUS_TABLE.get(canonical) : null;
			if (fromStatus == Outcome.THROTTLED || (fromStatus == null && status == 429)) {
				Outcome vertexPool = exhausted(quotaIds, message, legacyReason);
				if (vertexPool == Outcome.AVAILABILITY) {
					finding = new Finding(Outcome.AVAILABILITY, errorType, true, null, message,
							"Vertex AI's shared capacity (RESOURCE_EXHAUSTED with no quota of the project)");
				}
				else {
					finding = decide(status, fromStatus, canonical, errorType, message);
				}
			}
			else {
				finding = decide(status, fromStatus, canonical, errorType, message);
			}
		}
		if (neverClears && finding.outcome() == Outcome.QUOTA) {
			// "limit: 0" never clears, whatever "Please retry in 20s" says: park for the
			// default.
			finding = finding.withoutTextHint();
		}
		else if (retryDelay != null) {
			finding = finding.withBodyHint(retryDelay);
		}
		return finding;
	}

	private static Finding byQuotaIds(int status, List<String> quotaIds, @Nullable String errorType,
			@Nullable String message, boolean neverClears) {
		if (status >= 500) {
			return decide(status, Outcome.AVAILABILITY, errorType, message);
		}
		for (String quotaId : quotaIds) {
			if (isLongPeriod(quotaId)) {
				return new Finding(Outcome.QUOTA, errorType, true, null, message, "detail QuotaFailure " + quotaId);
			}
		}
		if (neverClears) {
			return new Finding(Outcome.QUOTA, errorType, true, null, message, "message: \"limit: 0\"");
		}
		Finding throttle = new Finding(Outcome.THROTTLED, errorType, true, null, message,
				"detail QuotaFailure " + quotaIds.get(0));
		Outcome refined = refineThrottle(message);
		return (refined == Outcome.REQUEST)
				? throttle.decided(Outcome.REQUEST, "message: the request is larger than the whole limit") : throttle;
	}

	private static boolean isLongPeriod(String quotaId) {
		String id = quotaId.toLowerCase(java.util.Locale.ROOT);
		return id.contains("perday") || id.contains("per_day") || id.contains("permonth") || id.contains("per_month");
	}

	/**
	 * What a RESOURCE_EXHAUSTED means: per-minute limit, daily cap, or (Vertex) no
	 * capacity.
	 */
	private Outcome exhausted(List<String> quotaIds, @Nullable String message, @Nullable String legacyReason) {
		for (String quotaId : quotaIds) {
			if (quotaId.contains("PerDay") || quotaId.contains("per_day")) {
				return Outcome.QUOTA;
			}
		}
		if (contains(message, "limit: 0")) {
			return Outcome.QUOTA;
		}
		Outcome throttle = refineThrottle(message);
		if (throttle != Outcome.THROTTLED) {
			return throttle;
		}
		// Vertex AI's dynamic shared quota: the shared pool is out of capacity, not our
		// project's limit. Another region or provider is the cure.
		if (this.vertex && quotaIds.isEmpty() && !contains(message, "quota exceeded for")
				&& (contains(message, "resource exhausted") || "rateLimitExceeded".equals(legacyReason))) {
			return Outcome.AVAILABILITY;
		}
		return Outcome.THROTTLED;
	}

	private static boolean isClaudeShape(@Nullable Object root) {
		return "error".equals(JsonBody.text(root, "type")) && JsonBody.text(root, "error", "type") != null;
	}

	@SuppressWarnings("unchecked")
	private static List<@Nullable Object> asObjects(List<?> list) {
		return (List<@Nullable Object>) list;
	}

}
