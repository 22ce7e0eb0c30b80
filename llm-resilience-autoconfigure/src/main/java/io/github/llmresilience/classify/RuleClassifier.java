package io.github.llmresilience.classify;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import io.github.llmresilience.classify.vendor.JsonBody;
import io.github.llmresilience.classify.vendor.VendorClassifier;
import io.github.llmresilience.classify.vendor.WaitHints;
import org.jspecify.annotations.Nullable;

/**
 * A provider's classifier behind the user's rules: each answer is matched against the
 * rules in force, in order, and the first that matches decides; an answer no rule matches
 * goes to the provider's classifier (its table, then its status default). Reads the rules
 * on every answer, so an edit applies from the next one.
 *
 * <p>
 * A rule never turns a successful answer into a failure: a 2xx answer, or a stream event,
 * that the provider's classifier reads as {@code SUCCESS} stays one. Never throws: an
 * answer that cannot be read matches no type or message condition.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public final class RuleClassifier implements ProviderErrorClassifier {

	private final ClassificationRules rules;

	private final ProviderErrorClassifier delegate;

	private final String provider;

	private final Clock clock;

	private final UnclassifiedListener listener;

	/**
	 * @param rules the user's rules
	 * @param provider the provider id a rule's {@code provider} condition is matched
	 * against (the target's provider)
	 * @param delegate the provider's classifier
	 * @param clock for wait hints that name an instant
	 * @param listener told which rule decided each answer a rule decided
	 */
	public RuleClassifier(ClassificationRules rules, String provider, ProviderErrorClassifier delegate, Clock clock,
			UnclassifiedListener listener) {
		this.rules = Objects.requireNonNull(rules, "rules");
		this.provider = provider.trim().toLowerCase(Locale.ROOT);
		this.delegate = Objects.requireNonNull(delegate, "delegate");
		this.clock = Objects.requireNonNull(clock, "clock");
		this.listener = Objects.requireNonNull(listener, "listener");
	}

	@Override
	public String provider() {
		return this.delegate.provider();
	}

	@Override
	public Verdict classify(ProviderResponse response) {
		List<ClassificationRule> rules = this.rules.rules();
		if (rules.isEmpty() || response == null) {
			return this.delegate.classify(response);
		}
		Verdict fromProvider = null;
		if (mayBeSuccess(response)) {
			fromProvider = this.delegate.classify(response);
			if (fromProvider == null || fromProvider.outcome() == Outcome.SUCCESS) {
				return fromProvider;
			}
		}
		Answer answer;
		try {
			answer = Answer.read(response);
		}
		catch (RuntimeException | StackOverflowError ex) {
			answer = Answer.EMPTY;
		}
		for (int i = 0; i < rules.size(); i++) {
			ClassificationRule rule = rules.get(i);
			if (matches(rule, response, answer)) {
				Verdict verdict = verdict(rule, "rules[" + i + "]", response, answer)
					.withReason("user rule rules[" + i + "]: " + rule.describe());
				report(response.status(), verdict);
				return verdict;
			}
		}
		return (fromProvider != null) ? fromProvider : this.delegate.classify(response);
	}

	/** A 2xx answer or stream event: an error in it is for the provider to find. */
	private static boolean mayBeSuccess(ProviderResponse response) {
		return response.kind() == ProviderResponse.Kind.STREAM_EVENT || (response.kind() == ProviderResponse.Kind.HTTP
				&& response.status() >= 200 && response.status() < 300);
	}

	private boolean matches(ClassificationRule rule, ProviderResponse response, Answer answer) {
		if (rule.provider() != null && !rule.provider().equals(this.provider)) {
			return false;
		}
		if (rule.status() != null && (response.status() == 0 || !rule.matchesStatus(response.status()))) {
			return false;
		}
		if (rule.type() != null && !answer.types().contains(rule.type())) {
			return false;
		}
		return rule.messageContains() == null
				|| answer.lowerText().contains(rule.messageContains().toLowerCase(Locale.ROOT));
	}

	private Verdict verdict(ClassificationRule rule, String name, ProviderResponse response, Answer answer) {
		Outcome outcome = rule.outcome();
		Duration hint = null;
		if (outcome != Outcome.REQUEST && outcome != Outcome.CONTENT_FILTER) {
			hint = WaitHints.fromHeaders(response, this.clock);
			if (hint == null && answer.message() != null) {
				hint = WaitHints.fromText(answer.message(), this.clock);
			}
			if (hint == null) {
				hint = rule.waitHint();
			}
		}
		String errorType = VendorClassifier.sanitize(answer.types().isEmpty() ? null : answer.types().get(0));
		return Verdict.of(outcome, hint, errorType).withRule(name);
	}

	private void report(int status, Verdict verdict) {
		try {
			this.listener.decidedByRule(this.delegate.provider(), status, verdict.errorType().orElse(null),
					verdict.rule(), verdict.reason());
		}
		catch (RuntimeException ex) {
			// A listener's failure is not the call's failure.
		}
	}

	/**
	 * What a rule's conditions are matched against: every error type and code field the
	 * answer carries, in the order providers put the most specific first, and its message
	 * (or, when none can be read, the body's first {@link JsonBody#MAX_CHARS}), in lower
	 * case once for every rule.
	 */
	record Answer(List<String> types, @Nullable String message, String lowerText) {

		static final Answer EMPTY = new Answer(List.of(), null, "");

		static Answer read(ProviderResponse response) {
			List<String> types = new ArrayList<>(4);
			switch (response.kind()) {
				case TIMEOUT -> {
					return new Answer(List.of("timeout"), null, "");
				}
				case CONNECTION_FAILURE -> {
					return new Answer(List.of("connection"), null, "");
				}
				default -> {
				}
			}
			add(types, response.event());
			add(types, awsType(response.header("x-amzn-errortype")));
			String body = response.body();
			String scanned = body.substring(0, Math.min(body.length(), JsonBody.MAX_CHARS));
			Object root = JsonBody.unwrapArray(JsonBody.parse(body));
			Object error = JsonBody.member(root, "error");
			if (!(error instanceof Map<?, ?>)) {
				error = null;
			}
			// The Responses API's {"response": {"status": "failed", "error": {...}}}
			Object failed = JsonBody.at(root, "response", "error");
			for (Object node : new Object[] { error, failed, root }) {
				if (node == null) {
					continue;
				}
				add(types, JsonBody.text(node, "innererror", "code"));
				add(types, JsonBody.text(node, "details", "error_code"));
				add(types, JsonBody.text(node, "code"));
				add(types, JsonBody.text(node, "type"));
				add(types, JsonBody.text(node, "status"));
				add(types, awsType(JsonBody.text(node, "__type")));
			}
			types.remove("error");
			String message = null;
			for (Object node : new Object[] { error, failed, root }) {
				if (message == null && node != null) {
					message = VendorClassifier.firstText(JsonBody.text(node, "message"), JsonBody.text(node, "Message"),
							JsonBody.text(node, "detail"));
				}
			}
			return new Answer(List.copyOf(types), message,
					((message != null) ? message : scanned).toLowerCase(Locale.ROOT));
		}

		private static void add(List<String> types, @Nullable String value) {
			if (value != null && !value.isBlank() && value.length() <= 256 && !types.contains(value.strip())) {
				types.add(value.strip());
			}
		}

		/**
		 * "ThrottlingException:http://..." and "com.amazon.coral#ThrottlingException".
		 */
		private static @Nullable String awsType(@Nullable String raw) {
			if (raw == null || raw.isBlank()) {
				return null;
			}
			String type = raw.trim();
			int colon = type.indexOf(':');
			if (colon > 0) {
				type = type.substring(0, colon);
			}
			int hash = type.lastIndexOf('#');
			return (hash >= 0) ? type.substring(hash + 1) : type;
		}

	}

}
