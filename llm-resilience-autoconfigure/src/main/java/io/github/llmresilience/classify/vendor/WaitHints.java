package io.github.llmresilience.classify.vendor;

import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

import io.github.llmresilience.classify.ProviderResponse;
import org.jspecify.annotations.Nullable;

/**
 * Reads how long a provider asked us to wait, from every place providers put it: the
 * standard {@code retry-after}, and the headers each {@link Vendors#REGISTERED
 * registered} vendor names in its {@link Vendor#waitHeaders()}. Every method returns
 * {@code null} for "no hint" and otherwise a duration in {@code [0, MAX]}; malformed
 * values are ignored, never thrown.
 */
public final class WaitHints {

	/** The longest hint believed; anything longer is cut to this. */
	public static final Duration MAX = Duration.ofDays(366);

	private static final long MAX_NANOS = Long.MAX_VALUE;

	private static final int MAX_VALUE_LENGTH = 64;

	private static final String[] TEXT_CUES = { "try again in ", "try again after ", "retry in ", "retry after ",
			"retry-after ", "wait ", "regain access on ", "resets in ", "reset in ", "resets at ", "reset at ",
			"resets on ", "try again at ", "available again at ", "available again in " };

	/**
	 * Headers of a bare wait in milliseconds every vendor may send (Azure's, OpenAI's).
	 */
	private static final String[] MILLISECOND_HEADERS = { "retry-after-ms", "x-ms-retry-after-ms" };

	/**
	 * Reset headers in spellings no registered vendor owns, read on every answer: the
	 * hyphenated {@code x-rate-limit-reset-*} beside {@code x-rate-limit-remaining-*}.
	 */
	private static final List<WaitHeaders> COMMON_RESETS = List
		.of(WaitHeaders.resetDurations("x-rate-limit-reset-", "x-rate-limit-remaining-"));

	/**
	 * A reset without a dimension: seconds, a Go duration, an epoch timestamp (seconds or
	 * milliseconds) or an instant.
	 */
	private static final String[] BARE_RESET_HEADERS = { "x-ratelimit-reset", "x-rate-limit-reset", "ratelimit-reset" };

	private WaitHints() {
	}

	/**
	 * The hint in the headers: a vendor's milliseconds ({@code retry-after-ms}), then
	 * {@code retry-after} (seconds or an HTTP-date relative to the {@code date} header),
	 * then the exhausted dimension's reset in each vendor's form, in registration order
	 * ({@code x-ratelimit-reset-*} durations, then {@code anthropic-ratelimit-*-reset}
	 * instants).
	 * @param response the response
	 * @param clock the clock for "now" when the response has no {@code date} header
	 * @return the hint, or {@code null}
	 */
	public static @Nullable Duration fromHeaders(ProviderResponse response, Clock clock) {
		Duration hint = retryAfterHeaders(response, clock);
		return (hint != null) ? hint : resetHeaders(response, clock);
	}

	/**
	 * The bare wait in the headers: a vendor's milliseconds, then {@code retry-after}. It
	 * says when to try again, not when a limit resets, so it never turns a rate limit
	 * into a quota on its own.
	 * @param response the response
	 * @param clock the clock for "now" when the response has no {@code date} header
	 * @return the hint, or {@code null}
	 */
	static @Nullable Duration retryAfterHeaders(ProviderResponse response, Clock clock) {
		if (response.headers().isEmpty()) {
			return null;
		}
		for (WaitHeaders form : Forms.MILLISECONDS) {
			Duration hint = milliseconds(response.header(form.retryAfterMillis()));
			if (hint != null) {
				return hint;
			}
		}
		for (String header : MILLISECOND_HEADERS) {
			Duration hint = milliseconds(response.header(header));
			if (hint != null) {
				return hint;
			}
		}
		String retryAfter = response.header("retry-after");
		return (retryAfter != null) ? retryAfter(retryAfter, () -> responseTime(response, clock)) : null;
	}

	/**
	 * When the exhausted limit resets, in the first vendor form the headers hold: the
	 * {@code x-ratelimit-reset-*} duration, else the {@code anthropic-ratelimit-*-reset}
	 * instant.
	 * @param response the response
	 * @param clock the clock for "now" when the response has no {@code date} header
	 * @return the hint, or {@code null}
	 */
	static @Nullable Duration resetHeaders(ProviderResponse response, Clock clock) {
		if (response.headers().isEmpty()) {
			return null;
		}
		for (WaitHeaders form : Forms.RESETS) {
			Duration hint = longestReset(response, form, clock);
			if (hint != null) {
				return hint;
			}
		}
		for (WaitHeaders form : COMMON_RESETS) {
			Duration hint = longestReset(response, form, clock);
			if (hint != null) {
				return hint;
			}
		}
		for (String header : BARE_RESET_HEADERS) {
			String value = response.header(header);
			if (value != null) {
				Duration hint = resetValue(value, responseTime(response, clock));
				if (hint != null) {
					return hint;
				}
			}
		}
		return null;
	}

	/**
	 * Parse a reset value in any of the spellings providers use: a Go or protobuf
	 * duration ({@code 6m0s}, {@code 1.5s}), bare seconds ({@code 33011.38}), an epoch
	 * timestamp in seconds ({@code 1741305600}) or milliseconds ({@code 1741305600000}),
	 * an RFC 3339 instant or an HTTP-date.
	 * @param value the header value
	 * @param now when the response was sent
	 * @return the wait, in {@code [0, MAX]}, or {@code null} when it is none of these
	 */
	public static @Nullable Duration resetValue(@Nullable String value, Instant now) {
		if (value == null) {
			return null;
		}
		String trimmed = value.trim();
		if (trimmed.isEmpty() || trimmed.length() > MAX_VALUE_LENGTH) {
			return null;
		}
		Double number = number(trimmed);
		if (number != null) {
			if (number >= 1e12) {
				return between(now, Instant.ofEpochMilli(number.longValue()));
			}
			if (number >= 1e9) {
				return between(now, Instant.ofEpochSecond(number.longValue()));
			}
			return nanos(number * 1e9);
		}
		Duration go = goDuration(trimmed);
		if (go != null) {
			return go;
		}
		Instant at = rfc3339(trimmed);
		if (at == null) {
			at = httpDate(trimmed);
		}
		return (at != null) ? between(now, at) : null;
	}

	/**
	 * Parse a {@code retry-after} value: integer or decimal seconds, or an HTTP-date.
	 * @param value the header value
	 * @param now when the response was sent
	 * @return the hint, or {@code null}
	 */
	public static @Nullable Duration retryAfter(String value, Instant now) {
		return retryAfter(value, () -> now);
	}

	private static @Nullable Duration retryAfter(String value, Supplier<Instant> now) {
		String trimmed = value.trim();
		if (trimmed.isEmpty() || trimmed.length() > MAX_VALUE_LENGTH) {
			return null;
		}
		if (Character.isDigit(trimmed.charAt(0)) || trimmed.charAt(0) == '.' || trimmed.charAt(0) == '-') {
			return seconds(trimmed);
		}
		Instant at = httpDate(trimmed);
		return (at != null) ? between(now.get(), at) : null;
	}

	/**
	 * Parse a Go duration ({@code 6m0s}, {@code 2m59.56s}, {@code 20ms}) or a protobuf
	 * duration ({@code 26s}, {@code 1.5s}).
	 * @param value the text
	 * @return the duration, or {@code null} when it is not one
	 */
	public static @Nullable Duration goDuration(@Nullable String value) {
		if (value == null) {
			return null;
		}
		String text = value.trim();
		if (text.isEmpty() || text.length() > MAX_VALUE_LENGTH) {
			return null;
		}
		double totalNanos = 0;
		int i = 0;
		boolean any = false;
		while (i < text.length()) {
			int numberStart = i;
			while (i < text.length() && (Character.isDigit(text.charAt(i)) || text.charAt(i) == '.')) {
				i++;
			}
			if (i == numberStart) {
				return null;
			}
			double number;
			try {
				number = Double.parseDouble(text.substring(numberStart, i));
			}
			catch (NumberFormatException ex) {
				return null;
			}
			int unitStart = i;
			while (i < text.length() && !Character.isDigit(text.charAt(i)) && text.charAt(i) != '.') {
				i++;
			}
			double unitNanos = switch (text.substring(unitStart, i)) {
				case "h" -> 3_600e9;
				case "m" -> 60e9;
				case "s" -> 1e9;
				case "ms" -> 1e6;
				case "us", "\u00b5s", "\u03bcs" -> 1e3;
				case "ns" -> 1;
				default -> -1;
			};
			if (unitNanos < 0) {
				return null;
			}
			totalNanos += number * unitNanos;
			any = true;
		}
		return any ? nanos(totalNanos) : null;
	}

	/**
	 * Find a wait in a human-readable message: "Please try again in 3.89s", "retry after
	 * 37 seconds", "try again in 9m38.016s", "You will regain access on 2026-09-01 at
	 * 00:00 UTC".
	 * @param text the message or body
	 * @param clock the clock, for messages that name an instant
	 * @return the hint, or {@code null}
	 */
	public static @Nullable Duration fromText(@Nullable String text, Clock clock) {
		if (text == null || text.isEmpty()) {
			return null;
		}
		String lower = text.substring(0, Math.min(text.length(), JsonBody.MAX_CHARS)).toLowerCase(Locale.ROOT);
		for (String cue : TEXT_CUES) {
			int at = lower.indexOf(cue);
			while (at >= 0) {
				Duration hint = (cue.startsWith("regain") || cue.endsWith(" at ") || cue.endsWith(" on "))
						? calendarInstant(lower, at + cue.length(), clock) : spokenDuration(lower, at + cue.length());
				if (hint != null) {
					return hint;
				}
				at = lower.indexOf(cue, at + cue.length());
			}
		}
		return null;
	}

	static @Nullable Duration milliseconds(@Nullable String value) {
		if (value == null) {
			return null;
		}
		Double number = number(value);
		return (number != null) ? nanos(number * 1e6) : null;
	}

	static @Nullable Duration seconds(String value) {
		Double number = number(value);
		return (number != null) ? nanos(number * 1e9) : null;
	}

	private static @Nullable Double number(String value) {
		String trimmed = value.trim();
		if (trimmed.isEmpty() || trimmed.length() > MAX_VALUE_LENGTH) {
			return null;
		}
		for (int i = 0; i < trimmed.length(); i++) {
			char c = trimmed.charAt(i);
			if (!(Character.isDigit(c) || c == '.' || (i == 0 && c == '-'))) {
				return null;
			}
		}
		try {
			double number = Double.parseDouble(trimmed);
			// A negative wait means "now", never "earlier than now".
			return (Double.isFinite(number)) ? Math.max(0, number) : null;
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

	private static Duration nanos(double nanos) {
		if (!(nanos >= 0)) {
			return Duration.ZERO;
		}
		if (nanos >= MAX.toNanos() || nanos >= MAX_NANOS) {
			return MAX;
		}
		return Duration.ofNanos((long) nanos);
	}

	static @Nullable Duration between(@Nullable Instant from, @Nullable Instant to) {
		if (from == null || to == null) {
			return null;
		}
		Duration between = Duration.between(from, to);
		if (between.isNegative()) {
			return Duration.ZERO;
		}
		return (between.compareTo(MAX) > 0) ? MAX : between;
	}

	static @Nullable Instant httpDate(@Nullable String value) {
		if (value == null || value.length() > MAX_VALUE_LENGTH) {
			return null;
		}
		try {
			return ZonedDateTime.parse(value.trim(), DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
		}
		catch (DateTimeException ex) {
			return null;
		}
	}

	static @Nullable Instant rfc3339(@Nullable String value) {
		if (value == null || value.length() > MAX_VALUE_LENGTH) {
			return null;
		}
		try {
			return OffsetDateTime.parse(value.trim()).toInstant();
		}
		catch (DateTimeException ex) {
			return null;
		}
	}

	private static Instant responseTime(ProviderResponse response, Clock clock) {
		Instant date = httpDate(response.header("date"));
		return (date != null) ? date : clock.instant();
	}

	/**
	 * The reset of the exhausted dimension in one vendor's form, else the longest (a
	 * duration) or latest (an instant).
	 */
	private static @Nullable Duration longestReset(ProviderResponse response, WaitHeaders form, Clock clock) {
		String prefix = form.resetPrefix();
		String suffix = form.resetSuffix();
		Duration exhausted = null;
		Duration any = null;
		Instant now = null;
		for (String name : response.headers().keySet()) {
			if (!name.regionMatches(true, 0, prefix, 0, prefix.length())
					|| !name.regionMatches(true, name.length() - suffix.length(), suffix, 0, suffix.length())) {
				continue;
			}
			String dimension = name.substring(prefix.length(), name.length() - suffix.length());
			if (dimension.isEmpty()) {
				continue;
			}
			if (now == null) {
				now = responseTime(response, clock);
			}
			Duration reset = form.resetInstant() ? between(now, rfc3339(response.header(name)))
					: resetValue(response.header(name), now);
			if (reset == null) {
				continue;
			}
			String remainingName = form.remainingPrefix() + dimension + form.remainingSuffix();
			Double remaining = number(String.valueOf(response.header(remainingName)));
			if (remaining != null && remaining == 0) {
				exhausted = longer(exhausted, reset);
			}
			any = longer(any, reset);
		}
		return (exhausted != null) ? exhausted : any;
	}

	private static Duration longer(@Nullable Duration a, Duration b) {
		return (a == null || b.compareTo(a) > 0) ? b : a;
	}

	private static @Nullable Duration spokenDuration(String text, int from) {
		int i = from;
		while (i < text.length() && text.charAt(i) == ' ') {
			i++;
		}
		int tokenStart = i;
		while (i < text.length() && isDurationChar(text.charAt(i))) {
			i++;
		}
		String token = text.substring(tokenStart, i);
		while (token.endsWith(".")) {
			token = token.substring(0, token.length() - 1);
		}
		if (token.isEmpty() || !Character.isDigit(token.charAt(0))) {
			return null;
		}
		Duration go = goDuration(token);
		if (go != null) {
			return go;
		}
		Double number = number(token);
		if (number == null) {
			return null;
		}
		while (i < text.length() && text.charAt(i) == ' ') {
			i++;
		}
		int wordStart = i;
		while (i < text.length() && Character.isLetter(text.charAt(i))) {
			i++;
		}
		double unitNanos = switch (text.substring(wordStart, i)) {
			case "ms", "millisecond", "milliseconds" -> 1e6;
			case "s", "sec", "secs", "second", "seconds" -> 1e9;
			case "m", "min", "mins", "minute", "minutes" -> 60e9;
			case "h", "hour", "hours" -> 3_600e9;
			default -> -1;
		};
		return (unitNanos > 0) ? nanos(number * unitNanos) : null;
	}

	private static boolean isDurationChar(char c) {
		return Character.isDigit(c) || c == '.' || c == 'h' || c == 'm' || c == 's' || c == 'u' || c == 'n'
				|| c == '\u00b5';
	}

	/**
	 * "2026-09-01 at 00:00 utc", as Anthropic's spend-limit message names its reset; an
	 * RFC 3339 instant ("2026-09-01t00:00:00z"); or a time of day in UTC ("14:05 utc"),
	 * the next one to come.
	 */
	private static @Nullable Duration calendarInstant(String text, int from, Clock clock) {
		int end = Math.min(text.length(), from + 24);
		String phrase = text.substring(from, end);
		Duration timeOfDay = timeOfDay(phrase, clock);
		if (timeOfDay != null) {
			return timeOfDay;
		}
		int token = 0;
		while (token < phrase.length() && !Character.isWhitespace(phrase.charAt(token)) && phrase.charAt(token) != ','
				&& phrase.charAt(token) != ')') {
			token++;
		}
		String word = phrase.substring(0, token);
		while (word.endsWith(".")) {
			word = word.substring(0, word.length() - 1);
		}
		if (word.length() > 10 && word.charAt(10) == 't') {
			Instant at = rfc3339(word.toUpperCase(Locale.ROOT));
			if (at != null) {
				return between(clock.instant(), at);
			}
		}
		try {
			LocalDate date = LocalDate.parse(phrase.substring(0, 10));
			LocalTime time = LocalTime.MIDNIGHT;
			if (phrase.startsWith(" at ", 10) && phrase.length() >= 19) {
				time = LocalTime.parse(phrase.substring(14, 19));
			}
			Instant at = date.atTime(time).toInstant(ZoneOffset.UTC);
			return between(clock.instant(), at);
		}
		catch (DateTimeException | IndexOutOfBoundsException ex) {
			return null;
		}
	}

	/** "14:05 utc" or "14:05:30 utc": the next such time from now. */
	private static @Nullable Duration timeOfDay(String phrase, Clock clock) {
		if (phrase.length() < 5 || phrase.charAt(2) != ':' || !Character.isDigit(phrase.charAt(0))) {
			return null;
		}
		int end = (phrase.length() >= 8 && phrase.charAt(5) == ':') ? 8 : 5;
		String rest = phrase.substring(end).stripLeading();
		if (!rest.startsWith("utc") && !rest.startsWith("gmt") && !rest.startsWith("z")) {
			return null;
		}
		try {
			LocalTime time = LocalTime.parse(phrase.substring(0, end));
			Instant now = clock.instant();
			Instant at = LocalDate.ofInstant(now, ZoneOffset.UTC).atTime(time).toInstant(ZoneOffset.UTC);
			if (at.isBefore(now)) {
				at = at.plus(Duration.ofDays(1));
			}
			return between(now, at);
		}
		catch (DateTimeException ex) {
			return null;
		}
	}

	/**
	 * The registered vendors' header forms, read once on first use (not while the vendors
	 * are being registered).
	 */
	private static final class Forms {

		static final List<WaitHeaders> MILLISECONDS = Vendors.distinct(Vendor::waitHeaders)
			.stream()
			.filter((form) -> form.retryAfterMillis() != null)
			.toList();

		static final List<WaitHeaders> RESETS = Vendors.distinct(Vendor::waitHeaders)
			.stream()
			.filter((form) -> form.resetPrefix() != null)
			.toList();

	}

}
