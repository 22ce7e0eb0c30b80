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

	private static final Verdict TIMEOUT = Verdict.of(Outcome.AVAILABILITY, null, "timeout");

	private static final Verdict CONNECTION = Verdict.of(Outcome.AVAILABILITY, null, "connection");

	private static final int MAX_ERROR_TYPE = 64;

	/** Error types that say the provider's fleet is overloaded, not one model. */
	static final Set<String> PROVIDER_WIDE_TYPES = Set.of("overloaded_error", "engine_overloaded", "server_overloaded",
			"no_capacity");

	/** Message text that says the same. */
	private static final String[] PROVIDER_WIDE_PHRASES = { "service is overloaded", "service is currently overloaded",
			"engine is currently overloaded", "server is currently overloaded with other requests", "high demand",
			"peak load" };

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
			return Verdict.of(byStatus(status, null).outcome(), null, "classifier_error").withRule(Verdict.DEFAULT);
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
	 * Apply the status rules on top of the provider table's reading of the error type.
	 * @param status the HTTP status (2xx for an error embedded in a success answer)
	 * @param fromTable the outcome the provider's table gives the error type, or
	 * {@code null} when it does not know the type
	 * @param errorType the provider's error type or code, or {@code null}
	 * @param message the provider's message, used for the text rules and hints
	 */
	protected static Finding decide(int status, @Nullable Outcome fromTable, @Nullable String errorType,
			@Nullable String message) {
		boolean known = fromTable != null || errorType == null;
		Outcome outcome;
		if (status >= 500 || status == 408) {
			outcome = Outcome.AVAILABILITY;
		}
		else if (status == 401) {
			outcome = Outcome.CREDENTIAL;
			known = true;
		}
		else if (status == 402) {
			outcome = Outcome.QUOTA;
			known = true;
		}
		else if (status == 429) {
			outcome = (fromTable == Outcome.QUOTA || fromTable == Outcome.AVAILABILITY || fromTable == Outcome.REQUEST)
					? fromTable : Outcome.THROTTLED;
			if (fromTable == null && contains(message, "overloaded")) {
				outcome = Outcome.AVAILABILITY;
			}
			else if (outcome == Outcome.THROTTLED && isSharedCapacity(message)) {
				// Azure's shared pool at peak load: the provider's capacity, not this
				// account's rate limit; the gate would wait on a limit that was not hit.
				outcome = Outcome.AVAILABILITY;
			}
		}
		else if (status >= 200 && status < 300) {
			// An error inside a success answer came from the provider's side.
			outcome = (fromTable != null) ? fromTable : Outcome.AVAILABILITY;
			known = fromTable != null;
			if (outcome == Outcome.THROTTLED && isSharedCapacity(message)) {
				outcome = Outcome.AVAILABILITY;
			}
		}
		else if (fromTable != null) {
			outcome = fromTable;
			if (outcome == Outcome.REQUEST && regainsAccessOn(message)) {
				// A spend or usage limit sent as a 400 invalid_request_error: the account
				// is
				// out until the date the message names, and every other request fails
				// too.
				outcome = Outcome.QUOTA;
			}
		}
		else {
			return byStatus(status, errorType).withMessage(message);
		}
		if (outcome == Outcome.THROTTLED) {
			outcome = refineThrottle(message);
		}
		return new Finding(outcome, errorType, known, null, message);
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
			default -> {
				if (status >= 500 && status < 600) {
					outcome = Outcome.AVAILABILITY;
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
		return new Finding(outcome, errorType, knownStatus && errorType == null, null, null);
	}

	/**
	 * A rate limit that can never clear soon (a daily or monthly cap, a limit of zero) is
	 * a quota; a request larger than the limit itself can never succeed at all.
	 */
	protected static Outcome refineThrottle(@Nullable String message) {
		if (message == null) {
			return Outcome.THROTTLED;
		}
		String text = message.toLowerCase(Locale.ROOT);
		if (exceedsLimitItself(text)) {
			return Outcome.REQUEST;
		}
		if (isLongPeriodCap(text)) {
			return Outcome.QUOTA;
		}
		return Outcome.THROTTLED;
	}

	private static boolean isLongPeriodCap(String text) {
		return text.contains("per day") || text.contains("perday") || text.contains("per_day") || text.contains("(tpd)")
				|| text.contains("(rpd)") || text.contains("daily") || text.contains("per month")
				|| text.contains("/ month") || text.contains("/month") || text.contains("monthly")
				|| text.contains("limit: 0,") || text.contains("limit: 0\n") || text.endsWith("limit: 0");
	}

	/**
	 * Whether the message's own numbers show the request can never fit: "Limit 6000, Used
	 * 0, Requested ~8141" asks for more than the whole per-minute limit, so waiting for
	 * the window to clear cannot help.
	 */
	private static boolean exceedsLimitItself(String text) {
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
		return contains(message, "high demand") || contains(message, "peak load");
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
		return new Finding(Outcome.CONTENT_FILTER, errorType, true, null, null);
	}

	// Assembling the verdict -----------------------------------------------------------

	private Verdict verdict(ProviderResponse response, @Nullable Finding finding) {
		if (finding == null) {
			return Verdict.success();
		}
		Outcome outcome = finding.outcome();
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
				}
				else if (beyondQuotaThreshold(hint) && beyondQuotaThreshold(textHint(finding))) {
					// The provider's own message names the long wait too (Azure: "Please
					// retry after 86400 seconds"), not just a header a gateway may have
					// set.
					outcome = Outcome.QUOTA;
				}
			}
		}
		String errorType = sanitize(finding.errorType());
		if (!finding.known()) {
			report(response.status(), errorType);
		}
		Verdict verdict = Verdict.of(outcome, hint, errorType);
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
		try {
			this.settings.listener().unclassified(this.provider, status, errorType);
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
