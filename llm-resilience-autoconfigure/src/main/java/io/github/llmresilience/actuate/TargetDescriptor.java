package io.github.llmresilience.actuate;

import java.time.Instant;

import io.github.llmresilience.overload.OverloadState;
import io.github.llmresilience.state.TargetState;
import io.github.llmresilience.state.TargetState.AccountState;
import io.github.llmresilience.state.TargetState.BreakerState;
import io.github.llmresilience.state.TargetState.TimeoutState;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * What an operator needs to know about one target: whether it can serve now, and if not,
 * which of its three mechanisms holds it back and until when. Never its base URL (a query
 * string may carry a key) and never its key. Serialized by the actuator's own JSON
 * mapper, which leaves out what is {@code null}.
 *
 * @param name the target's name
 * @param provider the provider id
 * @param model the model or deployment
 * @param region the region
 * @param usable whether a call could be sent to it now
 * @param availableAt when it may serve again; {@code null} when it is usable, or when
 * only an operator can make it usable (a breaker forced open)
 * @param breaker the breaker of its failure domain
 * @param throttle its quota scope's gate
 * @param account its account's park and lock
 * @param retryBudget its retry budget's current window
 * @param timeouts its attempt and first-token timeouts: configured, or measured
 * @param overload its failure domain's limit on calls in flight and its provider
 * account's local refusals; {@code null} when overload control is off
 */
public record TargetDescriptor(String name, String provider, String model, String region, boolean usable,
		@Nullable Instant availableAt, BreakerDescriptor breaker, ThrottleDescriptor throttle,
		AccountDescriptor account, RetryBudgetDescriptor retryBudget, TimeoutsDescriptor timeouts,
		@Nullable OverloadDescriptor overload) implements OperationResponseBody {

	/** As the endpoint shows a target's state. */
	public static TargetDescriptor of(TargetState state) {
		return new TargetDescriptor(state.name(), state.provider(), state.model(), state.region(), state.usable(),
				state.availableAt(), BreakerDescriptor.of(state.breaker()),
				new ThrottleDescriptor(state.scope().key(), state.scope().gatedUntil()),
				AccountDescriptor.of(state.account()),
				new RetryBudgetDescriptor(state.retryBudget().calls(), state.retryBudget().retries()),
				new TimeoutsDescriptor(TimeoutDescriptor.of(state.attemptTimeout()),
						TimeoutDescriptor.of(state.firstTokenTimeout())),
				OverloadDescriptor.of(state.overload()));
	}

	/**
	 * Overload control at a target: each part is {@code null} when it is off.
	 *
	 * @param concurrencyLimit its failure domain's adaptive limit on calls in flight
	 * @param inFlight its failure domain's calls in flight from this pod
	 * @param refusalProbability the share of its provider account's first-shed traffic
	 * class refused here now, 0 to 1
	 */
	public record OverloadDescriptor(@Nullable Integer concurrencyLimit, @Nullable Integer inFlight,
			@Nullable Double refusalProbability) {

		static @Nullable OverloadDescriptor of(@Nullable OverloadState state) {
			if (state == null) {
				return null;
			}
			boolean limited = state.limit() >= 0;
			return new OverloadDescriptor(limited ? state.limit() : null, limited ? state.inFlight() : null,
					(state.refusalProbability() >= 0) ? state.refusalProbability() : null);
		}

	}

	/**
	 * The breaker of a failure domain (shared by every target in the domain).
	 *
	 * @param domain the failure domain, {@code provider/model/region} by default
	 * @param state the Resilience4j state: {@code CLOSED}, {@code OPEN},
	 * {@code HALF_OPEN}, {@code FORCED_OPEN}...
	 * @param failureRate the failure rate in percent, -1 until {@code minimum-calls} are
	 * recorded
	 * @param slowCallRate the slow-call rate in percent, -1 until {@code minimum-calls}
	 * are recorded
	 * @param bufferedCalls the calls in the sliding window
	 * @param failedCalls the failed calls in the window
	 * @param slowCalls the slow calls in the window
	 * @param notPermittedCalls the calls refused while open
	 * @param availableAt when an open breaker lets a trial call through; {@code null}
	 * when it lets calls through now, or when it is forced open (until an operator closes
	 * it)
	 * @param reason {@code spend} when spend opened it; {@code null} otherwise
	 */
	public record BreakerDescriptor(String domain, String state, float failureRate, float slowCallRate,
			int bufferedCalls, int failedCalls, int slowCalls, long notPermittedCalls, @Nullable Instant availableAt,
			@Nullable String reason) {

		static BreakerDescriptor of(BreakerState breaker) {
			return new BreakerDescriptor(breaker.domain(), breaker.status().name(), breaker.failureRate(),
					breaker.slowCallRate(), breaker.bufferedCalls(), breaker.failedCalls(), breaker.slowCalls(),
					breaker.notPermittedCalls(), breaker.availableAt(), breaker.reason());
		}

	}

	/**
	 * The gate of a quota scope.
	 *
	 * @param scope the quota scope, {@code account/model}
	 * @param throttledUntil when the scope takes calls again after a rate limit;
	 * {@code null} when it takes them now
	 */
	public record ThrottleDescriptor(String scope, @Nullable Instant throttledUntil) {

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
	public record AccountDescriptor(String name, @Nullable Instant parkedUntil, @Nullable String parkReason,
			@Nullable Instant lockedUntil, @Nullable String lockReason,
			int consecutiveCredentialErrors) implements OperationResponseBody {

		static AccountDescriptor of(AccountState account) {
			return new AccountDescriptor(account.name(), account.parkedUntil(), account.parkReason(),
					account.lockedUntil(), account.lockReason(), account.consecutiveCredentialErrors());
		}

	}

	/**
	 * The retry budget's window.
	 *
	 * @param calls first attempts counted in the window
	 * @param retries retries taken in the window
	 */
	public record RetryBudgetDescriptor(long calls, long retries) {

	}

	/**
	 * A target's timeouts.
	 *
	 * @param attempt the limit of a non-streaming attempt
	 * @param firstToken the limit of a stream's time to first token
	 */
	public record TimeoutsDescriptor(TimeoutDescriptor attempt, TimeoutDescriptor firstToken) {

	}

	/**
	 * One timeout, as {@code timeouts.adaptive} sets it.
	 *
	 * @param current the timeout in force, in milliseconds
	 * @param configured the configured value (the ceiling), in milliseconds
	 * @param p99 the 99th percentile of recent calls (a timed-out one counted at the
	 * length it ran), in milliseconds
	 * @param samples calls recorded: successes and timeouts
	 * @param timeouts timeouts recorded
	 * @param measured whether {@code current} comes from measurement
	 * @param backedOff whether a recent timeout holds {@code current} above the measured
	 * value
	 */
	public record TimeoutDescriptor(long current, long configured, long p99, long samples, long timeouts,
			boolean measured, boolean backedOff) {

		static TimeoutDescriptor of(TimeoutState snapshot) {
			return new TimeoutDescriptor(snapshot.current().toMillis(), snapshot.configured().toMillis(),
					snapshot.p99().toMillis(), snapshot.samples(), snapshot.timeouts(), snapshot.measured(),
					snapshot.backedOff());
		}

	}

}
