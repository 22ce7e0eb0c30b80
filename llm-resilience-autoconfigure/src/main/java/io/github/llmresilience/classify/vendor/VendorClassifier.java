package io.github.llmresilience.classify.vendor;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import io.github.llmresilience.classify.ClassifierSettings;
import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.ProviderErrorClassifier;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.Verdict;
import org.jspecify.annotations.Nullable;

/**
 * The frame every built-in classifier shares: dispatch by kind of answer, scan event
 * streams, read wait hints, apply the status rules the provider's table refines, report
 * defaults, and never throw.
 *
 * <p>
 * Subclasses, one in each vendor's folder, only read their provider's body shapes into
 * {@link Finding}s.
 */
public abstract class VendorClassifier implements ProviderErrorClassifier {

	private static final Verdict TIMEOUT = Verdict.of(Outcome.AVAILABILITY, null, "timeout")
		.withReason("no answer in time");

	private static final Verdict CONNECTION = Verdict.of(Outcome.AVAILABILITY, null, "connection")
		.withReason("no answer: the connection failed");

	private static final int MAX_ERROR_TYPE = 64;

	/** Error types that say the provider's fleet is overloaded, not one model. */
	static final Set<String> PROVIDER_WIDE_TYPES = Set.of("overloaded_error", "engine_overloaded", "server_overloaded",
			"no_capacity", "engine_overloaded_error", "queue_exceeded", "1305");

	/** Message text that says the same. */
	private static final String[] PROVIDER_WIDE_PHRASES = { "service is overloaded", "service is currently overloaded",
			"engine is currently overloaded", "server is currently overloaded with other requests", "high demand",
			"peak load", "high traffic", "servers are busy", "server is busy", "system is busy", "服务器繁忙" };

	private final String provider;

	protected final ClassifierSettings settings;

	protected VendorClassifier(String provider, ClassifierSettings settings) {
		this.provider = provider;
		this.settings = settings;
	}

	@Override
	public final String provider() {
		return this.provider;
	}

	@Override
	public final Verdict classify(ProviderResponse response) {
		if (response == null) {
			return CONNECTION;
		}
		try {
			return classifyResponse(response);
		}
		catch (RuntimeException | StackOverflowError ex) {
			// A bug here must not take the call down with it: fall back to the status.
			int status = response.status();
			if (status >= 200 && status < 300) {
				return Verdict.success();
			}
			report(status, "classifier_error");
			return Verdict.of(byStatus(status, null).outcome(), null, "classifier_error")
				.withRule(Verdict.DEFAULT)
				.withReason("status " + status + " default (the answer could not be read)");
		}
	}

	private Verdict classifyResponse(ProviderResponse response) {
		switch (response.kind()) {
			case TIMEOUT:
				return TIMEOUT;
			case CONNECTION_FAILURE:
				return CONNECTION;
			case STREAM_EVENT:
				return verdict(response, streamEvent(response.event(), response.body()));
			default:
				break;
		}
		int status = response.status();
		if (status >= 200 && status < 300) {
			if (response.isEventStream()) {
				for (SseEvents.Event event : SseEvents.parse(response.body())) {
					Finding finding = streamEvent(event.name(), event.data());
					if (finding != null) {
						return verdict(response, finding);
					}
				}
				return Verdict.success();
			}
			String body = response.body();
			if (!containsAny(body, successMarkers())) {
				return Verdict.success();
			}
			return verdict(response, successBody(JsonBody.parse(body), body));
		}
		Finding finding = error(status, response, JsonBody.parse(response.body()));
		return verdict(response, (finding != null) ? finding : byStatus(status, null));
	}

	private @Nullable Finding streamEvent(@Nullable String event, @Nullable String data) {
		if (data == null || data.isEmpty() || "[DONE]".equals(data.trim())) {
			return ("error".equals(event)) ? embeddedError(null, null, null, null) : null;
		}
		return streamEvent(event, JsonBody.parse(data), data);
	}

	// What each provider reads

	/** Substrings that make a 2xx body worth parsing; without them it is a success. */
	protected abstract String[] successMarkers();

	/**
	 * Read a 2xx body that contains a marker: a refusal, or an error inside a 200.
	 * @return the finding, or {@code null} for a success
	 */
	protected abstract @Nullable Finding successBody(@Nullable Object json, String body);

	/**
	 * Read one stream event: an error event or a refusal stop.
	 * @return the finding, or {@code null} for an ordinary event
	 */
	protected abstract @Nullable Finding streamEvent(@Nullable String event, @Nullable Object json, String data);

	/**
	 * Read a non-2xx answer.
	 * @return the finding, or {@code null} to apply the status rules alone
	 */
	protected abstract @Nullable Finding error(int status, ProviderResponse response, @Nullable Object json);

	// Shared rules

	/**
	 * Error types and codes that say only the kind of status they came with
	 * ({@code invalid_request_error}, {@code bad_request}, {@code error}, a numeric code,
	 * Google's canonical status, an AWS validation): the message and the details outrank
	 * them. Every other code the provider's table knows is specific and outranks the
	 * message.
	 */
	static final Set<String> GENERIC_TYPES = Set.of("invalid_request_error", "invalid_request", "bad_request",
			"BadRequest", "BadRequestError", "Bad Request", "error", "unknown_error", "api_error", "rate_limit_error",
			"tokens", "requests", "permission_error", "PermissionDenied", "permission_denied", "INVALID_ARGUMENT",
			"FAILED_PRECONDITION", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "NOT_FOUND", "too_many_requests",
			"too_many_requests_error", "not_found_error", "NotFoundError", "ValidationException",
			"ResourceNotFoundException", "validationexception", "resourcenotfoundexception", "client_error",
			"invalid_argument", "unsupported_value", "invalid_value", "model_not_found",
			"Client specified an invalid argument",
			"The caller does not have permission to execute the specified operation",
			"Some resource has been exhausted");

	/**
	 * Apply the status rules on top of the provider table's reading of the error type.
	 * @param status the HTTP status (2xx for an error embedded in a success answer)
	 * @param fromTable the outcome the provider's table gives the error type, or
	 * {@code null} when it does not know the type
	 * @param errorType the provider's error type or code, or {@code null}
	 * @param message the provider's message, used for the text rules and hints
	 */
	protected static Finding decide(int status, @Nullable Outcome fromTable, @Nullable String errorType,
			@Nullable String message) {
		return decide(status, fromTable, errorType, errorType, message);
	}

	/**
	 * The precedence rule: a vendor's specific code beats the message; the message (its
	 * {@link MessageFamilies families}) and the details beat a generic type and the
	 * status; the status is the last resort. A 5xx (and 408) is the provider's whatever
	 * the body says.
	 * @param status the HTTP status (2xx for an error embedded in a success answer)
	 * @param fromTable the outcome the provider's table gives {@code code}, or
	 * {@code null}
	 * @param code the code or type that gave {@code fromTable}
	 * @param errorType the error type or code reported for metrics
	 * @param message the provider's message, or a text body's prefix
	 */
	protected static Finding decide(int status, @Nullable Outcome fromTable, @Nullable String code,
			@Nullable String errorType, @Nullable String message) {
		boolean specific = fromTable != null && code != null && !isGeneric(code);
		String codeReason = (fromTable == null) ? null : ((specific ? "vendor code " : "generic type ") + code);
		if (status >= 500 || status == 408) {
			boolean known = fromTable != null || errorType == null;
			String reason = (fromTable == Outcome.AVAILABILITY) ? codeReason : "status " + status;
			return new Finding(Outcome.AVAILABILITY, errorType, known, null, message, reason);
		}
		if (specific) {
			return bySpecificCode(status, fromTable, errorType, message, codeReason);
		}
		if (mayExceedLimitItself(message) && exceedsLimitItself(lower(message))) {
			return new Finding(Outcome.REQUEST, errorType, true, null, message,
					"message: the request is larger than the whole limit");
		}
		MessageFamilies.Match match = MessageFamilies.BUILT_IN.match(message);
		if (match != null) {
			Outcome outcome = match.outcome();
			String reason = match.reason();
			if (outcome == Outcome.THROTTLED && isSharedCapacity(message)) {
				outcome = Outcome.AVAILABILITY;
				reason = "message: shared capacity at peak load";
			}
			return new Finding(outcome, errorType, true, null, message, reason);
		}
		if (fromTable != null) {
			return byGenericType(status, fromTable, errorType, message, codeReason);
		}
		if (status >= 200 && status < 300) {
			// An error inside a success answer came from the provider's side.
			return new Finding(Outcome.AVAILABILITY, errorType, false, null, message, "error inside a 2xx answer");
		}
		return byStatus(status, errorType).withMessage(message);
	}

	private static Finding bySpecificCode(int status, Outcome fromTable, @Nullable String errorType,
			@Nullable String message, String codeReason) {
		Outcome outcome = fromTable;
		String reason = codeReason;
		if (status == 401 && outcome != Outcome.QUOTA) {
			outcome = Outcome.CREDENTIAL;
			reason = "status 401";
		}
		else if (status == 402) {
			outcome = Outcome.QUOTA;
			reason = (fromTable == Outcome.QUOTA) ? codeReason : "status 402";
		}
		else if (status == 429 && outcome != Outcome.QUOTA && outcome != Outcome.AVAILABILITY
				&& outcome != Outcome.REQUEST) {
			outcome = Outcome.THROTTLED;
			reason = (fromTable == Outcome.THROTTLED) ? codeReason : "status 429";
		}
		if (outcome == Outcome.REQUEST && regainsAccessOn(message)) {
			// A spend or usage limit sent as a 400 invalid_request_error: the account is
			// out until the date the message names, and every other request fails too.
			return new Finding(Outcome.QUOTA, errorType, true, null, message, "message: \"regain access on\"");
		}
		if (outcome == Outcome.THROTTLED) {
			return refine(errorType, message, reason);
		}
		return new Finding(outcome, errorType, true, null, message, reason);
	}

	private static Finding byGenericType(int status, Outcome fromTable, @Nullable String errorType,
			@Nullable String message, @Nullable String codeReason) {
		Outcome outcome = fromTable;
		String reason = codeReason;
		if (status == 401) {
			outcome = Outcome.CREDENTIAL;
			reason = "status 401";
		}
		else if (status == 402) {
			outcome = Outcome.QUOTA;
			reason = "status 402";
		}
		else if (status == 429) {
			if (outcome != Outcome.QUOTA && outcome != Outcome.AVAILABILITY && outcome != Outcome.REQUEST) {
				outcome = Outcome.THROTTLED;
			}
		}
		else if (status == 403 && outcome == Outcome.REQUEST) {
			outcome = Outcome.CREDENTIAL;
			reason = "status 403";
		}
		if (outcome == Outcome.REQUEST && regainsAccessOn(message)) {
			return new Finding(Outcome.QUOTA, errorType, true, null, message, "message: \"regain access on\"");
		}
		if (outcome == Outcome.THROTTLED) {
			return refine(errorType, message, reason);
		}
		return new Finding(outcome, errorType, true, null, message, reason);
	}

	/**
	 * A throttle, read with its period: per day is QUOTA, more than the limit REQUEST.
	 */
	private static Finding refine(@Nullable String errorType, @Nullable String message, @Nullable String reason) {
		if (message != null) {
			if (mayExceedLimitItself(message) && exceedsLimitItself(lower(message))) {
				return new Finding(Outcome.REQUEST, errorType, true, null, message,
						"message: the request is larger than the whole limit");
			}
			MessageFamilies.Match period = MessageFamilies.BUILT_IN.match(message, Outcome.QUOTA);
			if (period != null && period.family().rank() == 0) {
				return new Finding(Outcome.QUOTA, errorType, true, null, message, period.reason());
			}
			if (isSharedCapacity(message)) {
				// Azure's shared pool at peak load: the provider's capacity, not this
				// account's rate limit; the gate would wait on a limit that was not hit.
				return new Finding(Outcome.AVAILABILITY, errorType, true, null, message,
						"message: shared capacity at peak load");
			}
		}
		return new Finding(Outcome.THROTTLED, errorType, true, null, message, reason);
	}

	/** Whether a code says only the kind of its status (see {@link #GENERIC_TYPES}). */
	protected static boolean isGeneric(@Nullable String code) {
		if (code == null || code.isEmpty() || GENERIC_TYPES.contains(code)) {
			return true;
		}
		for (int i = 0; i < code.length(); i++) {
			if (!Character.isDigit(code.charAt(i))) {
				return false;
			}
		}
		// A numeric code of three digits is an HTTP status repeated; longer ones (Z.ai's
		// 1113, SiliconFlow's 30011) are the vendor's own.
		return code.length() <= 3;
	}

	private static @Nullable String lower(@Nullable String message) {
		return (message != null)
				? message.substring(0, Math.min(message.length(), MessageFamilies.MAX_CHARS)).toLowerCase(Locale.ROOT)
				: null;
	}

	/** The status rules alone, for a type the provider's table does not know. */
	protected static Finding byStatus(int status, @Nullable String errorType) {
		Outcome outcome;
		boolean knownStatus = true;
		switch (status) {
			case 400, 404, 405, 413, 415, 422 -> outcome = Outcome.REQUEST;
			case 401, 403 -> outcome = Outcome.CREDENTIAL;
			case 402 -> outcome = Outcome.QUOTA;
			case 408, 409 -> outcome = Outcome.AVAILABILITY;
			case 429 -> outcome = Outcome.THROTTLED;
			// A client or gateway gave up waiting (nginx, Google's CANCELLED): the answer
			// never came.
			case 499 -> outcome = Outcome.AVAILABILITY;
			default -> {
				if (status >= 500 && status < 600) {
					outcome = Outcome.AVAILABILITY;
				}
				else if (status == 498) {
					// Groq's flex capacity, Cohere's invalid token: the profile says
					// which;
					// either way another target may serve.
					outcome = Outcome.AVAILABILITY;
					knownStatus = false;
				}
				else if (status >= 300 && status < 500) {
					outcome = Outcome.REQUEST;
					knownStatus = false;
				}
				else {
					outcome = Outcome.AVAILABILITY;
					knownStatus = false;
				}
			}
		}
		return new Finding(outcome, errorType, knownStatus && errorType == null, null, null,
				"status " + status + " default");
	}

	/**
	 * A rate limit that can never clear soon (a daily or monthly cap, a limit of zero) is
	 * a quota; a request larger than the limit itself can never succeed at all.
	 */
	protected static Outcome refineThrottle(@Nullable String message) {
		return refine(null, message, null).outcome();
	}

	/**
	 * Whether the message's own numbers show the request can never fit: "Limit 6000, Used
	 * 0, Requested ~8141" asks for more than the whole per-minute limit, so waiting for
	 * the window to clear cannot help.
	 */
	private static boolean exceedsLimitItself(@Nullable String text) {
		if (text == null) {
			return false;
		}
		if (text.contains("request too large")) {
			return true;
		}
		long limit = numberAfter(text, "limit ");
		long requested = numberAfter(text, "requested ");
		return limit >= 0 && requested > limit;
	}

	/**
	 * Whether a 429 speaks of the provider's shared capacity rather than the account's
	 * limit: Azure's "The system is currently experiencing high demand ... peak load ...
	 * consider switching to Provisioned Throughput".
	 */
	protected static boolean isSharedCapacity(@Nullable String message) {
		if (message == null || (message.indexOf("emand") < 0 && message.indexOf("oad") < 0)) {
			return false;
		}
		return contains(message, "high demand") || contains(message, "peak load");
	}

	/**
	 * Whether the numbers or "request too large" can be there at all: both need
	 * "request"; the common answer without it is not copied to lower case.
	 */
	private static boolean mayExceedLimitItself(@Nullable String message) {
		return message != null && message.indexOf("equest") >= 0;
	}

	/**
	 * Whether the message names the date an exhausted usage limit ends: "You will regain
	 * access on 2026-04-01 at 00:00 UTC".
	 */
	protected static boolean regainsAccessOn(@Nullable String message) {
		return contains(message, "regain access on");
	}

	/**
	 * The integer after the first occurrence of a word that has one ("Limit 30,000",
	 * "Requested ~8141"), or -1.
	 */
	private static long numberAfter(String text, String word) {
		for (int at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + word.length())) {
			long value = numberAt(text, at + word.length());
			if (value >= 0) {
				return value;
			}
		}
		return -1;
	}

	/** The integer at a position, an approximate "~" allowed before it, or -1. */
	private static long numberAt(String text, int from) {
		int i = from;
		if (i < text.length() && text.charAt(i) == '~') {
			i++;
		}
		long value = 0;
		int digits = 0;
		for (; i < text.length() && digits < 18; i++) {
			char c = text.charAt(i);
			if (c >= '0' && c <= '9') {
				value = value * 10 + (c - '0');
				digits++;
			}
			else if (c != ',' || digits == 0) {
				break;
			}
		}
		return (digits > 0) ? value : -1;
	}

	/**
	 * An error object met inside a 200 answer or a stream, read with the table alone.
	 */
	protected static Finding embeddedError(@Nullable Outcome fromTable, @Nullable String errorType,
			@Nullable String message, @Nullable Duration bodyHint) {
		Finding finding = decide(200, fromTable, errorType, message);
		return (bodyHint != null) ? finding.withBodyHint(bodyHint) : finding;
	}

	protected static Finding refusal(@Nullable String errorType) {
		return new Finding(Outcome.CONTENT_FILTER, errorType, true, null, null, "refusal " + errorType);
	}

	// Assembling the verdict -----------------------------------------------------------

	/**
	 * What a status means at this provider when nothing else in the answer says (Groq's
	 * 498 is its flex tier's capacity, Cohere's an invalid token), or {@code null} for
	 * the shared status rules.
	 * @param status the HTTP status
	 * @return the outcome, or {@code null}
	 */
	protected @Nullable Outcome statusMeaning(int status) {
		return null;
	}

	private Verdict verdict(ProviderResponse response, @Nullable Finding found) {
		if (found == null) {
			return Verdict.success();
		}
		Finding finding = found;
		if (finding.byStatusAlone() && response.status() != 0) {
			Outcome meaning = statusMeaning(response.status());
			if (meaning != null) {
				finding = finding.decided(meaning, "status " + response.status() + " at " + this.provider);
			}
		}
		Outcome outcome = finding.outcome();
		String reason = (finding.reason() != null) ? finding.reason() : "status " + response.status() + " default";
		Duration hint = null;
		if (outcome != Outcome.SUCCESS && outcome != Outcome.REQUEST && outcome != Outcome.CONTENT_FILTER) {
			Duration retryAfter = WaitHints.retryAfterHeaders(response, this.settings.clock());
			Duration reset = (retryAfter == null || outcome == Outcome.THROTTLED)
					? WaitHints.resetHeaders(response, this.settings.clock()) : null;
			hint = (retryAfter != null) ? retryAfter : reset;
			if (hint == null) {
				hint = finding.bodyHint();
			}
			if (hint == null && outcome != Outcome.CREDENTIAL) {
				hint = textHint(finding);
			}
			if (outcome == Outcome.THROTTLED) {
				if (beyondQuotaThreshold(reset)) {
					// The provider says when the exhausted limit resets, and that is far
					// off.
					outcome = Outcome.QUOTA;
					hint = reset;
					reason = reason + "; its reset header is beyond the quota threshold";
				}
				else if (beyondQuotaThreshold(hint) && beyondQuotaThreshold(textHint(finding))) {
					// The provider's own message names the long wait too (Azure: "Please
					// retry after 86400 seconds"), not just a header a gateway may have
					// set.
					outcome = Outcome.QUOTA;
					reason = reason + "; its message's wait is beyond the quota threshold";
				}
			}
		}
		String errorType = sanitize(finding.errorType());
		if (!finding.known()) {
			report(response.status(), errorType, reason);
		}
		Verdict verdict = Verdict.of(outcome, hint, errorType).withReason(reason);
		if (!finding.known()) {
			verdict = verdict.withRule(Verdict.DEFAULT);
		}
		return (outcome == Outcome.AVAILABILITY && isProviderWide(response, errorType, finding.hintText()))
				? verdict.withProviderWide(true) : verdict;
	}

	/**
	 * Whether an availability answer speaks for the provider's whole fleet: a 529, an
	 * overloaded error type, Azure's shared capacity at peak load, "the service is
	 * overloaded", OpenAI's "the server is currently overloaded with other requests".
	 * "The model is overloaded" speaks for one model, a bare "server is overloaded" 503
	 * for one server: neither is.
	 */
	static boolean isProviderWide(ProviderResponse response, @Nullable String errorType, @Nullable String message) {
		if (response.status() == 529) {
			return true;
		}
		if (errorType != null && PROVIDER_WIDE_TYPES.contains(errorType)) {
			return true;
		}
		if (message == null) {
			return false;
		}
		String text = message.toLowerCase(Locale.ROOT);
		for (String phrase : PROVIDER_WIDE_PHRASES) {
			if (text.contains(phrase)) {
				return true;
			}
		}
		return false;
	}

	private boolean beyondQuotaThreshold(@Nullable Duration hint) {
		return hint != null && hint.compareTo(this.settings.quotaThreshold()) > 0;
	}

	private @Nullable Duration textHint(Finding finding) {
		return (finding.hintText() != null) ? WaitHints.fromText(finding.hintText(), this.settings.clock()) : null;
	}

	private void report(int status, @Nullable String errorType) {
		report(status, errorType, "status " + status + " default");
	}

	private void report(int status, @Nullable String errorType, String reason) {
		try {
			this.settings.listener().unclassified(this.provider, status, errorType, reason);
		}
		catch (RuntimeException ex) {
			// A listener's failure is not the call's failure.
		}
	}

	/** Error types become metric tags: keep them short and plain. */
	public static @Nullable String sanitize(@Nullable String errorType) {
		if (errorType == null) {
			return null;
		}
		int length = Math.min(errorType.length(), MAX_ERROR_TYPE);
		StringBuilder clean = new StringBuilder(length);
		for (int i = 0; i < length; i++) {
			char c = errorType.charAt(i);
			boolean plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'
					|| c == '-' || c == '.' || c == ':' || c == '/';
			clean.append(plain ? c : '_');
		}
		String result = clean.toString().strip();
		return result.isEmpty() ? null : result;
	}

	// Small readers shared by the providers

	protected static boolean contains(@Nullable String text, String part) {
		return text != null && text.toLowerCase(Locale.ROOT).contains(part);
	}

	/**
	 * Whether a marker starts within the first {@link JsonBody#MAX_CHARS} characters: a
	 * 2xx body may be megabytes long, and the scan must cost the same whatever its size.
	 */
	protected static boolean containsAny(CharSequence body, String[] markers) {
		int end = Math.min(body.length(), JsonBody.MAX_CHARS);
		for (String marker : markers) {
			if (indexOf(body, marker, end) >= 0) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Where the marker starts before {@code end}, reading no character beyond its end.
	 */
	static int indexOf(CharSequence text, String marker, int end) {
		int last = Math.min(end - 1, text.length() - marker.length());
		if (marker.isEmpty()) {
			return (end > 0) ? 0 : -1;
		}
		char first = marker.charAt(0);
		for (int i = 0; i <= last; i++) {
			if (text.charAt(i) == first && matchesAt(text, i, marker)) {
				return i;
			}
		}
		return -1;
	}

	private static boolean matchesAt(CharSequence text, int at, String marker) {
		for (int j = 1; j < marker.length(); j++) {
			if (text.charAt(at + j) != marker.charAt(j)) {
				return false;
			}
		}
		return true;
	}

	/** The first non-blank of the candidates. */
	public static @Nullable String firstText(@Nullable String... candidates) {
		for (String candidate : candidates) {
			if (candidate != null && !candidate.isBlank()) {
				return candidate;
			}
		}
		return null;
	}

	/**
	 * Whether every element has the field set to one of the values (and there is one).
	 */
	protected static boolean allMatch(List<@Nullable Object> elements, String field, Set<String> values) {
		if (elements.isEmpty()) {
			return false;
		}
		for (Object element : elements) {
			String value = JsonBody.text(element, field);
			if (value == null || !values.contains(value)) {
				return false;
			}
		}
		return true;
	}

}
