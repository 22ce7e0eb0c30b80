package io.github.llmresilience.state;

import java.time.Duration;
import java.time.Instant;

import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.overload.OverloadState;
import org.jspecify.annotations.Nullable;

/**
 * One target: whether it can serve now, and if not, which of its three guards holds it
 * back (its failure domain's breaker, its quota scope's gate, its account) and until
 * when.
 *
 * @param name the target's name
 * @param provider the provider id, such as {@code openai}
 * @param model the model or deployment
 * @param region the region
 * @param usable whether a call could be sent to it now
 * @param availableAt when it may serve again; {@code null} when it is usable, or when
 * only an operator can make it usable (a breaker held open)
 * @param breaker the breaker of its failure domain
 * @param scope its quota scope's gate
 * @param account its account's park and lock
 * @param retryBudget its retry budget's current window
 * @param attemptTimeout the limit of a non-streaming attempt
 * @param firstTokenTimeout the limit of a stream's time to first token
 * @param overload its failure domain's limit on calls in flight and its provider
 * account's local refusals; {@code null} when overload control is off
 */
public record TargetState(String name, String provider, String model, String region, boolean usable,
		@Nullable Instant availableAt, BreakerState breaker, ScopeState scope, AccountState account,
		RetryBudgetState retryBudget, TimeoutState attemptTimeout, TimeoutState firstTokenTimeout,
		@Nullable OverloadState overload) {

	/**
	 * The breaker of a failure domain, shared by every target in the domain.
	 *
	 * @param domain the failure domain, {@code provider/model/region} by default
	 * @param status where the breaker stands
	 * @param failureRate the failure rate in percent, -1 until {@code minimum-calls} are
	 * recorded
	 * @param slowCallRate the slow-call rate in percent, -1 until {@code minimum-calls}
	 * are recorded
	 * @param bufferedCalls the calls in the sliding window
	 * @param successfulCalls the successful calls in the window
	 * @param failedCalls the failed calls in the window
	 * @param slowCalls the slow calls in the window, successful or not
	 * @param slowSuccessfulCalls the slow successful calls in the window
	 * @param notPermittedCalls the calls refused while open
	 * @param availableAt when an open breaker lets a trial call through; {@code null}
	 * when it lets calls through now, or when it is held open by an operator
	 * @param settings its thresholds
	 * @param reason why an open or half-open breaker opened when it was not its failure
	 * or slow-call rate: {@code spend} (its spend per call ran away); {@code null}
	 * otherwise
	 */
	public record BreakerState(String domain, Status status, float failureRate, float slowCallRate, int bufferedCalls,
			int successfulCalls, int failedCalls, int slowCalls, int slowSuccessfulCalls, long notPermittedCalls,
			@Nullable Instant availableAt, BreakerSettings settings, @Nullable String reason) {

		/** The reason that spend opened a breaker. */
		public static final String SPEND = "spend";

		/** A breaker's state with no reason beyond its rates. */
		public BreakerState(String domain, Status status, float failureRate, float slowCallRate, int bufferedCalls,
				int successfulCalls, int failedCalls, int slowCalls, int slowSuccessfulCalls, long notPermittedCalls,
				@Nullable Instant availableAt, BreakerSettings settings) {
			this(domain, status, failureRate, slowCallRate, bufferedCalls, successfulCalls, failedCalls, slowCalls,
					slowSuccessfulCalls, notPermittedCalls, availableAt, settings, null);
		}

		/** Where a breaker stands (Resilience4j's states, by the same names). */
		public enum Status {

			/** Calls go through and are recorded. */
			CLOSED,

			/** Calls are refused until the open time ends. */
			OPEN,

			/** Trial calls decide whether it closes or opens again. */
			HALF_OPEN,

			/** Held open by an operator until one closes or resets it. */
			FORCED_OPEN,

			/**
			 * Switched off by an operator: every call goes through, nothing is recorded.
			 */
			DISABLED,

			/** Records calls but never opens. */
			METRICS_ONLY

		}

	}

	/**
	 * The gate of a quota scope.
	 *
	 * @param key the quota scope, {@code account/model}
	 * @param gatedUntil when the scope takes calls again after a rate limit; {@code null}
	 * when it is released
	 */
	public record ScopeState(String key, @Nullable Instant gatedUntil) {

	}

	/**
	 * The park and lock of an account.
	 *
	 * @param name the account
	 * @param parkedUntil the end of a park after a quota answer, or {@code null}
	 * @param parkReason why it was parked, or {@code null}
	 * @param lockedUntil the end of a lock after credential errors, or {@code null}
	 * @param lockReason why it was locked, or {@code null}
	 * @param consecutiveCredentialErrors credential errors in a row so far
	 */
	public record AccountState(String name, @Nullable Instant parkedUntil, @Nullable String parkReason,
			@Nullable Instant lockedUntil, @Nullable String lockReason, int consecutiveCredentialErrors) {

	}

	/**
	 * A retry budget's current window.
	 *
	 * @param calls first attempts counted in the window
	 * @param retries retries taken in the window
	 */
	public record RetryBudgetState(long calls, long retries) {

	}

	/**
	 * One timeout, as {@code timeouts.adaptive} sets it.
	 *
	 * @param current the timeout in force
	 * @param configured the configured value (the ceiling)
	 * @param p99 the 99th percentile of recent calls (a timed-out one counted at the
	 * length it ran)
	 * @param samples calls recorded: successes and timeouts
	 * @param timeouts timeouts recorded
	 * @param measured whether {@code current} comes from measurement
	 * @param backedOff whether a recent timeout holds {@code current} above the measured
	 * value
	 */
	public record TimeoutState(Duration current, Duration configured, Duration p99, long samples, long timeouts,
			boolean measured, boolean backedOff) {

	}

}
