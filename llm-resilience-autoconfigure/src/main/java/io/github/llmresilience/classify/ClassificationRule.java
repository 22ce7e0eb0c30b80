package io.github.llmresilience.classify;

import java.time.DateTimeException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import io.github.llmresilience.classify.vendor.WaitHints;
import io.github.llmresilience.settings.InvalidSettingException;
import io.github.llmresilience.timeout.TimeLimits;
import org.jspecify.annotations.Nullable;

/**
 * One of the user's classification rules, tried before the provider's built-in table: an
 * answer that meets every condition the rule sets gets the rule's outcome. The table is
 * the user's to keep up to date, in {@code llm.resilience.classification.rules} or
 * through the endpoint at runtime, without a classifier bean or a redeploy.
 *
 * @param provider the provider id the rule applies to ({@code openai}, {@code anthropic},
 * ...), or {@code null} for every provider
 * @param status an HTTP status ({@code 429}) or a class of them ({@code 4xx}), or
 * {@code null} for any status
 * @param type the provider's error type or code, matched exactly (any of the type and
 * code fields the answer carries), or {@code null} for any
 * @param messageContains text the provider's error message contains (case-insensitive;
 * the body's first 64 KiB when no message can be read), or {@code null} for any
 * @param outcome what a matching answer means; one of {@link #ALLOWED_OUTCOMES}
 * @param waitHint the wait hint of a matching answer that names none itself (the
 * {@code wait} of the configuration), or {@code null}; positive, at most
 * {@link TimeLimits#MAX}
 */
public record ClassificationRule(@Nullable String provider, @Nullable String status, @Nullable String type,
		@Nullable String messageContains, Outcome outcome, @Nullable Duration waitHint) {

	/**
	 * The outcomes a rule may give: {@code SUCCESS} would hide a failure as an answer,
	 * and {@code STREAM_INTERRUPTED} is the engine's own reading of a broken stream.
	 */
	public static final Set<Outcome> ALLOWED_OUTCOMES = Set.copyOf(EnumSet.of(Outcome.AVAILABILITY, Outcome.THROTTLED,
			Outcome.QUOTA, Outcome.CREDENTIAL, Outcome.REQUEST, Outcome.CONTENT_FILTER));

	/** The longest condition text kept: a rule is a table entry, not a document. */
	static final int MAX_TEXT = 256;

	/**
	 * Check every component.
	 * @throws IllegalArgumentException naming the first component that is out of its
	 * range ({@code outcome}, {@code status}, {@code wait}, ...) or, when the rule sets
	 * no condition at all, saying so; the message states what is allowed and ends with
	 * the value
	 */
	public ClassificationRule {
		provider = blankToNull(provider);
		status = blankToNull(status);
		type = blankToNull(type);
		messageContains = (messageContains != null && !messageContains.isEmpty()) ? messageContains : null;
		if (outcome == null) {
			throw new InvalidSettingException("outcome", "is required: one of " + allowedOutcomes(), null);
		}
		if (!ALLOWED_OUTCOMES.contains(outcome)) {
			throw new InvalidSettingException("outcome", "must be one of " + allowedOutcomes(), outcome);
		}
		if (provider == null && status == null && type == null && messageContains == null) {
			throw new InvalidSettingException("rule", "needs at least one condition: provider, status, type or "
					+ "message-contains (a rule without one would classify every answer)", "none");
		}
		if (status != null) {
			statusRange(status);
		}
		requireShort("provider", provider);
		requireShort("type", type);
		requireShort("messageContains", messageContains);
		if (waitHint != null) {
			TimeLimits.requirePositive("wait", waitHint);
		}
		if (provider != null) {
			provider = provider.toLowerCase(Locale.ROOT);
		}
	}

	/**
	 * A rule from text, as configuration and the endpoint give it.
	 * @param provider a provider id, or {@code null}
	 * @param status {@code 429}, {@code 4xx}, or {@code null}
	 * @param type an error type or code, or {@code null}
	 * @param messageContains text, or {@code null}
	 * @param outcome an outcome's name, in any case ({@code request})
	 * @param wait a duration such as {@code 30s}, {@code 500ms}, {@code 2m}, {@code 1h},
	 * {@code 1d} or ISO-8601 ({@code PT30S}), or {@code null}
	 * @return the rule
	 * @throws IllegalArgumentException as the canonical constructor does, or naming
	 * {@code outcome} or {@code wait} when they cannot be read
	 */
	public static ClassificationRule parse(@Nullable String provider, @Nullable String status, @Nullable String type,
			@Nullable String messageContains, @Nullable String outcome, @Nullable String wait) {
		return new ClassificationRule(provider, status, type, messageContains, outcome(outcome), duration(wait));
	}

	/** Every outcome a rule may give, by name. */
	public static String allowedOutcomes() {
		List<String> names = new ArrayList<>();
		for (Outcome outcome : Outcome.values()) {
			if (ALLOWED_OUTCOMES.contains(outcome)) {
				names.add(outcome.name());
			}
		}
		return String.join(", ", names);
	}

	/** Whether the rule's status condition, if any, holds for this status. */
	public boolean matchesStatus(int status) {
		if (this.status == null) {
			return true;
		}
		int[] range = statusRange(this.status);
		return status >= range[0] && status <= range[1];
	}

	/**
	 * The rule as one line, for logs and events:
	 * {@code status=429 type=tokens -> REQUEST}.
	 */
	public String describe() {
		StringBuilder text = new StringBuilder();
		append(text, "provider", this.provider);
		append(text, "status", this.status);
		append(text, "type", this.type);
		append(text, "message-contains", (this.messageContains != null) ? "'" + this.messageContains + "'" : null);
		text.append("-> ").append(this.outcome.name());
		if (this.waitHint != null) {
			text.append(" wait ").append(this.waitHint);
		}
		return text.toString();
	}

	private static void append(StringBuilder text, String name, @Nullable String value) {
		if (value != null) {
			text.append(name).append('=').append(value).append(' ');
		}
	}

	private static Outcome outcome(@Nullable String name) {
		if (name == null || name.isBlank()) {
			throw new InvalidSettingException("outcome", "is required: one of " + allowedOutcomes(),
					(name == null) ? "null" : "'" + name + "'");
		}
		String normalized = name.strip().toUpperCase(Locale.ROOT).replace('-', '_');
		for (Outcome outcome : Outcome.values()) {
			if (outcome.name().equals(normalized)) {
				return outcome;
			}
		}
		throw new InvalidSettingException("outcome", "must be one of " + allowedOutcomes(), "'" + name + "'");
	}

	private static @Nullable Duration duration(@Nullable String text) {
		if (text == null || text.isBlank()) {
			return null;
		}
		String value = text.strip();
		Duration parsed = null;
		if (value.length() <= 32) {
			if (value.endsWith("d") && value.length() > 1 && isDigits(value.substring(0, value.length() - 1))) {
				parsed = Duration.ofDays(Long.parseLong(value.substring(0, value.length() - 1)));
			}
			else if (value.startsWith("P") || value.startsWith("p")) {
				try {
					parsed = Duration.parse(value.toUpperCase(Locale.ROOT));
				}
				catch (DateTimeException ex) {
					parsed = null;
				}
			}
			else {
				parsed = WaitHints.goDuration(value);
			}
		}
		if (parsed == null) {
			throw new InvalidSettingException("wait", "must be a duration such as 30s, 500ms, 2m, 1h, 1d or PT30S",
					"'" + text + "'");
		}
		return parsed;
	}

	private static boolean isDigits(String text) {
		if (text.isEmpty() || text.length() > 6) {
			return false;
		}
		for (int i = 0; i < text.length(); i++) {
			if (!Character.isDigit(text.charAt(i))) {
				return false;
			}
		}
		return true;
	}

	/** {@code 429} is [429, 429]; {@code 4xx} is [400, 499]. */
	private static int[] statusRange(String status) {
		String text = status.strip().toLowerCase(Locale.ROOT);
		if (text.length() == 3 && text.charAt(0) >= '1' && text.charAt(0) <= '5') {
			if (text.endsWith("xx")) {
				int base = (text.charAt(0) - '0') * 100;
				return new int[] { base, base + 99 };
			}
			if (isDigits(text)) {
				int code = Integer.parseInt(text);
				return new int[] { code, code };
			}
		}
		throw new InvalidSettingException("status",
				"must be an HTTP status from 100 to 599 (429) or a class (4xx, 5xx)", "'" + status + "'");
	}

	private static void requireShort(String component, @Nullable String value) {
		if (value != null && value.length() > MAX_TEXT) {
			throw new InvalidSettingException(component, "must be at most " + MAX_TEXT + " characters",
					value.length() + " characters");
		}
	}

	private static @Nullable String blankToNull(@Nullable String value) {
		return (value == null || value.isBlank()) ? null : value.strip();
	}

}
