package io.github.llmresilience.classify;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * The classification of one provider answer: its {@link Outcome}, the wait the provider
 * asked for (if any) and the provider's own error type or code (for metrics).
 *
 * <p>
 * The wait hint is carried as the provider gave it: a day is a day. Clamping it to
 * {@code throttle.max-wait} is the gate's job, not the classifier's.
 *
 * <p>
 * Two facts ride along without changing what a verdict means (they take no part in
 * {@link #equals}): which rule decided it ({@link #rule()}: the provider's table, the
 * status default, or one of the user's {@code classification.rules}), and whether the
 * answer spoke for the provider's whole fleet ({@link #providerWide()}: a 529, an
 * {@code overloaded_error}, "the service is overloaded"), and why, in words an operator
 * reads ({@link #reason()}: the user's rule, a vendor code, a message family and the
 * phrase that matched, a structured detail, or the status default).
 */
public final class Verdict {

	private static final Verdict[] PLAIN = new Verdict[Outcome.values().length];

	static {
		for (Outcome outcome : Outcome.values()) {
			PLAIN[outcome.ordinal()] = new Verdict(outcome, null, null);
		}
	}

	private final Outcome outcome;

	private final @Nullable Duration waitHint;

	private final @Nullable String errorType;

	private final String rule;

	private final boolean providerWide;

	private final @Nullable String reason;

	/** {@link #rule()} of a verdict from the provider's classifier (its table). */
	public static final String BUILT_IN = "built-in";

	/**
	 * {@link #rule()} of a verdict read from the status alone, the table not knowing the
	 * answer.
	 */
	public static final String DEFAULT = "default";

	private Verdict(Outcome outcome, @Nullable Duration waitHint, @Nullable String errorType) {
		this(outcome, waitHint, errorType, BUILT_IN, false, null);
	}

	private Verdict(Outcome outcome, @Nullable Duration waitHint, @Nullable String errorType, String rule,
			boolean providerWide, @Nullable String reason) {
		this.outcome = outcome;
		this.waitHint = waitHint;
		this.errorType = errorType;
		this.rule = rule;
		this.providerWide = providerWide;
		this.reason = reason;
	}

	/** A verdict without wait hint or error type; shared instances, no allocation. */
	public static Verdict of(Outcome outcome) {
		return PLAIN[Objects.requireNonNull(outcome, "outcome").ordinal()];
	}

	/** The verdict of a successful answer. */
	public static Verdict success() {
		return PLAIN[Outcome.SUCCESS.ordinal()];
	}

	/**
	 * A verdict with an optional wait hint and error type.
	 * @param outcome the outcome
	 * @param waitHint the wait the provider asked for, or {@code null}; negative values
	 * are treated as zero
	 * @param errorType the provider's error type or code, or {@code null}
	 * @return the verdict
	 */
	public static Verdict of(Outcome outcome, @Nullable Duration waitHint, @Nullable String errorType) {
		Objects.requireNonNull(outcome, "outcome");
		if (waitHint == null && errorType == null) {
			return PLAIN[outcome.ordinal()];
		}
		return new Verdict(outcome, (waitHint != null && waitHint.isNegative()) ? Duration.ZERO : waitHint, errorType);
	}

	public Outcome outcome() {
		return this.outcome;
	}

	/** Whether the same target may be tried again (within the retry budget). */
	public boolean retry() {
		return this.outcome.retry();
	}

	/** Whether the failure domain's breaker records this as a failure. */
	public boolean countsAsFailure() {
		return this.outcome.countsAsFailure();
	}

	/** Whether the next target of the chain may serve the call instead. */
	public boolean failover() {
		return this.outcome.failover();
	}

	/** The wait the provider asked for, never negative; empty when it said nothing. */
	public Optional<Duration> waitHint() {
		return Optional.ofNullable(this.waitHint);
	}

	/** The provider's own error type or code (sanitized, at most 64 characters). */
	public Optional<String> errorType() {
		return Optional.ofNullable(this.errorType);
	}

	/**
	 * Which rule decided this verdict: {@value #BUILT_IN} (the provider's classifier),
	 * {@value #DEFAULT} (the status alone, for an answer the table does not know), or
	 * {@code rules[i]} (the user's rule at that index of
	 * {@code llm.resilience.classification.rules}).
	 */
	public String rule() {
		return this.rule;
	}

	/**
	 * Whether the answer speaks for the provider's whole fleet rather than one model (a
	 * 529, an {@code overloaded_error}, "the service is overloaded", Azure's shared
	 * capacity at peak load): while it holds, chains prefer other providers' targets.
	 */
	public boolean providerWide() {
		return this.providerWide;
	}

	/**
	 * What decided this verdict, in words: {@code rules[0] (status 429, message contains
	 * "quota")}, {@code vendor code insufficient_quota}, {@code message family quota:
	 * "credit balance is too low"}, {@code detail QuotaFailure
	 * GenerateRequestsPerDayPerProjectPerModel}, {@code status 503 default}. Never
	 * {@code null}: a verdict built without one names its outcome and rule.
	 */
	public String reason() {
		if (this.reason != null) {
			return this.reason;
		}
		if (this.outcome == Outcome.SUCCESS) {
			return "success";
		}
		return DEFAULT.equals(this.rule) ? "status default" : this.rule;
	}

	/** This verdict, as decided by another rule ({@link #rule()}). */
	public Verdict withRule(String rule) {
		Objects.requireNonNull(rule, "rule");
		return rule.equals(this.rule) ? this
				: new Verdict(this.outcome, this.waitHint, this.errorType, rule, this.providerWide, this.reason);
	}

	/**
	 * This verdict, speaking for the provider's whole fleet ({@link #providerWide()}).
	 */
	public Verdict withProviderWide(boolean providerWide) {
		return (providerWide == this.providerWide) ? this
				: new Verdict(this.outcome, this.waitHint, this.errorType, this.rule, providerWide, this.reason);
	}

	/**
	 * This verdict, with what decided it ({@link #reason()}); takes no part in
	 * {@link #equals}.
	 */
	public Verdict withReason(@Nullable String reason) {
		return Objects.equals(reason, this.reason) ? this
				: new Verdict(this.outcome, this.waitHint, this.errorType, this.rule, this.providerWide, reason);
	}

	@Override
	public boolean equals(@Nullable Object other) {
		if (this == other) {
			return true;
		}
		return other instanceof Verdict that && this.outcome == that.outcome
				&& Objects.equals(this.waitHint, that.waitHint) && Objects.equals(this.errorType, that.errorType);
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.outcome, this.waitHint, this.errorType);
	}

	@Override
	public String toString() {
		StringBuilder text = new StringBuilder(this.outcome.name());
		if (this.errorType != null) {
			text.append('(').append(this.errorType).append(')');
		}
		if (this.waitHint != null) {
			text.append(" wait ").append(this.waitHint.toMillis()).append("ms");
		}
		if (this.rule.startsWith("rules[")) {
			text.append(" by ").append(this.rule);
		}
		return text.toString();
	}

}
