package io.github.llmresilience.execute;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Function;

import io.github.llmresilience.breaker.Breaker;
import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.ProviderErrorClassifier;
import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.execute.ChainStep.Skip;
import io.github.llmresilience.fleet.Fleet;
import io.github.llmresilience.fleet.FleetStore.Write;
import io.github.llmresilience.overload.Admission;
import io.github.llmresilience.overload.Admission.Refusal;
import io.github.llmresilience.overload.Admission.Result;
import io.github.llmresilience.overload.ProviderOverloads;
import io.github.llmresilience.pool.Grant;
import io.github.llmresilience.pool.PoolSettings;
import io.github.llmresilience.pool.Pools;
import io.github.llmresilience.pool.ScopePartition;
import io.github.llmresilience.retry.RetryBudget;
import io.github.llmresilience.spend.DomainSpend;
import io.github.llmresilience.state.TargetState;
import io.github.llmresilience.state.TargetState.AccountState;
import io.github.llmresilience.state.TargetState.BreakerState;
import io.github.llmresilience.state.TargetState.RetryBudgetState;
import io.github.llmresilience.state.TargetState.ScopeState;
import io.github.llmresilience.state.TargetState.TimeoutState;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.throttle.Accounts;
import io.github.llmresilience.throttle.Accounts.AccountStatus;
import io.github.llmresilience.throttle.ThrottleGate;
import io.github.llmresilience.timeout.MeasuredTimeout;
import io.github.llmresilience.usage.Usage;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import org.jspecify.annotations.Nullable;

/**
 * The guard of one target, resolved once at startup so that the hot path does no lookups:
 * it admits a call (account, quota scope, breaker permit) or says why not and until when,
 * records what an attempt said about the provider where it belongs (breaker, gate,
 * account, measured timeouts), and tells when the target may serve again.
 */
final class TargetRuntime implements CallWait.Place {

	private final Target target;

	private final ProviderErrorClassifier classifier;

	private final Breaker breaker;

	/** Its failure domain's spend, which a runaway opens the breaker on. */
	private final DomainSpend spend;

	private final ThrottleGate gate;

	private final ThrottleGate.Scope scope;

	private final Accounts accounts;

	private final AccountStatus account;

	private final RetryBudget budget;

	private final Fleet fleet;

	private final MeasuredTimeout attemptTimeout;

	private final MeasuredTimeout firstTokenTimeout;

	private final Duration stall;

	private final Clock clock;

	/** The quota scope's partition between pools, or {@code null} with pools off. */
	private final @Nullable ScopePartition partition;

	private final Pools pools;

	/** The providers marked overloaded, which a provider-wide answer marks. */
	private final ProviderOverloads overloads;

	/**
	 * Overload control: its provider account's local refusals and its failure domain's
	 * limit on calls in flight ({@link Admission#OPEN} when both are off).
	 */
	private final Admission admission;

	/** A success slower than this is a sign of a queue: its breaker's slow-call time. */
	private final long slowNanos;

	/** The same for a stream's first element. */
	private final long slowFirstTokenNanos;

	/** The longest wait a provider's hint may promise ({@code throttle.max-wait}). */
	private final Duration maxWait;

	/**
	 * The shortest wait promised after a failure: the backoff base, or a second without
	 * one.
	 */
	private final Duration minPause;

	TargetRuntime(Target target, ProviderErrorClassifier classifier, Breaker breaker, DomainSpend spend,
			ThrottleGate gate, Accounts accounts, Fleet fleet, RetryBudget budget, MeasuredTimeout attemptTimeout,
			MeasuredTimeout firstTokenTimeout, Duration stall, Clock clock, Duration backoffBase, Pools pools,
			ProviderOverloads overloads, Admission admission) {
		this.target = target;
		this.classifier = classifier;
		this.breaker = breaker;
		this.spend = spend;
		this.gate = gate;
		this.scope = gate.scope(target.quotaScope());
		this.accounts = accounts;
		this.account = accounts.account(target.account());
		this.budget = budget;
		this.fleet = fleet;
		this.attemptTimeout = attemptTimeout;
		this.firstTokenTimeout = firstTokenTimeout;
		this.stall = stall;
		this.clock = clock;
		this.maxWait = gate.settings().maxWait();
		this.minPause = backoffBase.isZero() ? Duration.ofSeconds(1) : backoffBase;
		this.pools = pools;
		this.overloads = overloads;
		this.partition = pools.scope(target.quotaScope());
		this.admission = admission;
		this.slowNanos = breaker.settings().slowCallDuration().toNanos();
		this.slowFirstTokenNanos = breaker.settings().slowFirstTokenDuration().toNanos();
	}

	@Override
	public @Nullable ScopePartition partition() {
		return this.partition;
	}

	@Override
	public String quotaScope() {
		return this.target.quotaScope();
	}

	Target target() {
		return this.target;
	}

	String name() {
		return this.target.name();
	}

	ProviderErrorClassifier classifier() {
		return this.classifier;
	}

	RetryBudget budget() {
		return this.budget;
	}

	Breaker breaker() {
		return this.breaker;
	}

	/** The limit of an attempt: a stream's time to first token, or a whole answer's. */
	MeasuredTimeout timeout(boolean streaming) {
		return streaming ? this.firstTokenTimeout : this.attemptTimeout;
	}

	/** The longest gap between a stream's elements. */
	Duration stall() {
		return this.stall;
	}

	// Admit

	/**
	 * Admit a call: its account must be neither parked nor locked, its quota scope
	 * released, overload control must let it through, and its breaker must give a permit,
	 * which the caller then holds.
	 * @param pool the call's pool, its traffic class
	 * @return {@code null} when admitted, else the skip: why, and until when
	 */
	@Nullable ChainStep admit(String pool) {
		if (!this.accounts.isUsable(this.account)) {
			boolean locked = this.account.lockedUntil().toEpochMilli() > this.clock.millis();
			return skip(locked ? Skip.ACCOUNT_LOCKED : Skip.ACCOUNT_PARKED, this.account.availableAt());
		}
		if (!this.gate.isReleased(this.scope)) {
			return skip(Skip.SCOPE_GATED, this.scope.gatedUntil());
		}
		return acquire(pool);
	}

	/**
	 * Let overload control admit the request, then take a breaker permit: for a retry
	 * too, whose account and scope were just checked and whose failure, had it gated or
	 * parked them, would not have been retried. Overload control comes first, so that a
	 * request refused there takes no half-open trial.
	 * @return {@code null} when both are held, else the skip
	 */
	@Nullable ChainStep acquire(String pool) {
		Refusal refusal = this.admission.tryAdmit(pool);
		if (refusal != null) {
			return skip((refusal == Refusal.LIMITED) ? Skip.AT_CONCURRENCY_LIMIT : Skip.THROTTLED_LOCALLY,
					this.clock.instant().plusNanos(this.admission.retryNanos()));
		}
		if (this.breaker.tryAcquire()) {
			return null;
		}
		this.admission.release();
		Instant now = this.clock.instant();
		return this.breaker.isForcedOpen() ? skip(Skip.BREAKER_FORCED_OPEN, heldUntil(now))
				: skip(Skip.BREAKER_OPEN, this.breaker.availableAt(now));
	}

	/** Give the permit back unrecorded: the attempt said nothing about the provider. */
	void release() {
		this.breaker.release();
		this.admission.release();
	}

	private ChainStep skip(Skip why, @Nullable Instant until) {
		return new ChainStep(name(), 0, null, why, Duration.ZERO, until);
	}

	// Record

	/**
	 * The provider answered: settle the permit as a success, measure the time, and
	 * correct the attempt's draw on its pool by what the answer used. The call is served
	 * and the provider billed the answer: this is bookkeeping, and none of it may fail
	 * the call; a step that throws is logged and the next one still runs.
	 * @param nanos the attempt's time; for a stream, its time to first token
	 * @param answer what the call function handed over of the answer (headers, usage)
	 * @param chain the call's chain, which with its pool makes the answer's traffic
	 * class, whose own past its spend is judged against
	 * @param pool the call's pool
	 * @param grant the attempt's draw on its pool, or {@code null}
	 */
	void succeeded(long nanos, boolean streaming, Answer answer, String chain, String pool, @Nullable Grant grant,
			AnswerBookkeeping bookkeeping) {
		try {
			settle(nanos, streaming, answer, chain, pool);
		}
		catch (RuntimeException | LinkageError | AssertionError ex) {
			bookkeeping.failed(AnswerBookkeeping.Step.TARGET, this, ex);
		}
		if (grant != null && this.partition != null) {
			try {
				Usage usage = answer.usage();
				this.pools.answered(this.partition, grant, (usage != null) ? usage.totalTokens() : -1,
						answer.isEmpty() ? null : answer::header);
			}
			catch (RuntimeException | LinkageError | AssertionError ex) {
				bookkeeping.failed(AnswerBookkeeping.Step.POOLS, this, ex);
			}
		}
	}

	private void settle(long nanos, boolean streaming, Answer answer, String chain, String pool) {
		this.admission.settle(nanos,
				(nanos > (streaming ? this.slowFirstTokenNanos : this.slowNanos)) ? Result.SLOW : Result.ANSWERED);
		if (streaming) {
			this.breaker.onStreamSuccess(nanos);
		}
		else {
			this.breaker.onSuccess(nanos);
		}
		timeout(streaming).record(nanos);
		this.accounts.success(this.account);
		if (!answer.isEmpty()) {
			// Nothing handed over, no usage: no reference made on every call.
			this.spend.record(chain, pool, answer::usage);
		}
	}

	/**
	 * Record what a failed attempt said about the provider, everywhere it belongs: the
	 * one place that says what a verdict does. Every path that settles a failed attempt
	 * (an answer, an error, a stream cut off mid-way) comes here.
	 *
	 * <table>
	 * <caption>What each outcome does beyond settling the breaker permit</caption>
	 * <tr>
	 * <th>outcome</th>
	 * <th>breaker</th>
	 * <th>holds</th>
	 * </tr>
	 * <tr>
	 * <td>AVAILABILITY, STREAM_INTERRUPTED</td>
	 * <td>a failure</td>
	 * <td>nothing</td>
	 * </tr>
	 * <tr>
	 * <td>THROTTLED</td>
	 * <td>neither (counted, not failed)</td>
	 * <td>gates the quota scope; starts its release pace over</td>
	 * </tr>
	 * <tr>
	 * <td>QUOTA</td>
	 * <td>ignored</td>
	 * <td>parks the account</td>
	 * </tr>
	 * <tr>
	 * <td>CREDENTIAL</td>
	 * <td>ignored</td>
	 * <td>locks the account after repeated failures</td>
	 * </tr>
	 * <tr>
	 * <td>REQUEST, CONTENT_FILTER</td>
	 * <td>ignored</td>
	 * <td>nothing</td>
	 * </tr>
	 * </table>
	 * A timeout (any outcome whose error type is {@code timeout}) also backs off the
	 * measured timeout; a provider-wide answer marks the provider overloaded, so chains
	 * try its targets last. Retry and failover are the walk's to decide, from
	 * {@link io.github.llmresilience.classify.Outcome}'s own columns.
	 * @param nanos the attempt's time
	 * @param recorded the verdict the breaker permit is settled with
	 * @param cause what the provider said: the same as {@code recorded}, but for a stream
	 * cut off mid-way, recorded as {@code STREAM_INTERRUPTED}
	 * @param midStream whether the stream had delivered elements: its time is not an
	 * attempt's, and it sends no release pace news
	 * @param nowNanos monotonic time now
	 */
	void record(long nanos, Verdict recorded, Verdict cause, Throwable error, boolean midStream, long nowNanos) {
		this.breaker.onFailure(nanos, recorded, error);
		// Overload control learns latency only from overload and availability failures:
		// a refusal for quota, rate or the caller's request says nothing of a queue.
		boolean overloaded = cause.outcome() == Outcome.AVAILABILITY || cause.providerWide();
		this.admission.settle((overloaded && !midStream) ? nanos : -1,
				overloaded ? Result.OVERLOADED : Result.ANSWERED);
		if (!midStream && isTimeout(cause)) {
			timeout(false).recordTimeout(nanos);
		}
		hold(cause);
		if (!midStream && cause.outcome() == Outcome.THROTTLED) {
			// Any refusal starts the scope's release pace over when its gate ends, and
			// says how long a refusal takes to come back.
			this.pools.pace().refused(quotaScope(), nanos, nowNanos, gateNanos(this.clock.instant()));
		}
		if (cause.providerWide()) {
			this.overloads.mark(this.target.provider(), cause.waitHint().orElse(null), cause.errorType().orElse(null));
		}
	}

	static boolean isTimeout(Verdict verdict) {
		return "timeout".equals(verdict.errorType().orElse(null));
	}

	/** A stream answered, and the subscriber's own code failed afterwards. */
	void streamed(long firstTokenNanos) {
		this.breaker.onStreamSuccess(firstTokenNanos);
		this.admission.settle(firstTokenNanos, Result.ANSWERED);
	}

	/**
	 * Gate the scope, park or lock the account, as the verdict says; in fleet mode, tell
	 * the fleet (queued, never waited on). A provider-wide answer marks the provider
	 * overloaded. A canary's verdict comes here too.
	 */
	void hold(Verdict verdict) {
		if (verdict.providerWide()) {
			this.overloads.mark(this.target.provider(), verdict.waitHint().orElse(null),
					verdict.errorType().orElse(null));
		}
		String type = verdict.errorType().orElse(null);
		String why = (type != null) ? " (" + type + ")" : "";
		switch (verdict.outcome()) {
			case THROTTLED -> this.fleet.hold(Write.Kind.GATE, this.scope.key(), "rate limited" + why,
					this.gate.gate(this.scope, verdict.waitHint().orElse(null), type));
			case QUOTA -> this.fleet.hold(Write.Kind.PARK, this.account.name(), "quota" + why,
					this.accounts.park(this.account, verdict.waitHint().orElse(null), type));
			case CREDENTIAL -> {
				Instant until = this.accounts.credentialFailure(this.account, type);
				if (until.toEpochMilli() > this.clock.millis()) {
					String reason = this.account.lockReason();
					this.fleet.hold(Write.Kind.LOCK, this.account.name(), (reason != null) ? reason : "locked", until);
				}
			}
			default -> {
			}
		}
	}

	// Tell

	/** Whether a call could be admitted now: account, scope and breaker all allow it. */
	boolean isUsable() {
		return this.accounts.isUsable(this.account) && this.gate.isReleased(this.scope) && this.breaker.isUsable();
	}

	/**
	 * When this target may serve again: after its account's park or lock, its scope's
	 * gate and its breaker's open time; a target that just failed, or whose breaker has
	 * no trial free, gets at least a pause (the provider's hint, cut to
	 * {@code throttle.max-wait}, when longer). All from the caller's one reading of the
	 * clock, so the answer is never already in the past.
	 * @param lastVerdict the verdict of this call's last attempt on it, or {@code null}
	 */
	Instant availableAt(Instant now, @Nullable Verdict lastVerdict) {
		Instant at = now;
		at = later(at, this.account.availableAt());
		at = later(at, this.scope.gatedUntil());
		Instant breakerAt = this.breaker.availableAt(now);
		at = later(at, (breakerAt != null) ? breakerAt : heldUntil(now));
		long admitted = this.admission.retryNanos();
		if (admitted > 0) {
			at = later(at, now.plusNanos(admitted));
		}
		if (at.equals(now) && (lastVerdict != null || !this.breaker.isUsable())) {
			Duration pause = (lastVerdict != null) ? lastVerdict.waitHint().orElse(Duration.ZERO) : Duration.ZERO;
			if (pause.compareTo(this.maxWait) > 0) {
				pause = this.maxWait;
			}
			at = now.plus((pause.compareTo(this.minPause) > 0) ? pause : this.minPause);
		}
		return at;
	}

	/**
	 * As {@link #availableAt(Instant, Verdict)}, and not before the pool's share of the
	 * quota scope has room for one more call.
	 */
	Instant availableAt(Instant now, @Nullable Verdict lastVerdict, PoolSettings pool) {
		Instant at = availableAt(now, lastVerdict);
		if (this.partition != null) {
			long wait = this.pools.waitNanos(this.partition, pool, 0);
			if (wait > 0 && now.plusNanos(wait).isAfter(at)) {
				at = now.plusNanos(wait);
			}
		}
		return at;
	}

	/**
	 * How long until a call of the pool could be sent here if only rate limits held it:
	 * the scope's gate, then the pool's share.
	 * @return the wait in nanoseconds, zero when now
	 */
	long releaseNanos(Instant now, PoolSettings pool) {
		return Math.max(gateNanos(now), shareNanos(pool));
	}

	@Override
	public long gateNanos(Instant now) {
		return Math.max(0, this.scope.gatedUntil().toEpochMilli() - now.toEpochMilli()) * 1_000_000L;
	}

	@Override
	public long slotNanos() {
		return this.admission.slotNanos();
	}

	@Override
	public boolean isGated(Instant now) {
		return this.scope.gatedUntil().isAfter(now);
	}

	/** How long until a call of the pool that came now may draw on the scope. */
	long shareNanos(PoolSettings pool) {
		return (this.partition != null) ? this.pools.waitNanos(this.partition, pool, 0) : 0;
	}

	/**
	 * Draw for a call of the pool on the scope's partition now (pools on).
	 * @return the draw, or {@code null} when there is no room
	 */
	@Nullable Grant draw(PoolSettings pool) {
		return (this.partition != null) ? this.pools.tryTake(this.partition, pool, 0) : Grant.FREE;
	}

	/**
	 * An attempt's answer came (or its failure): correct its draw by the tokens used, and
	 * learn the scope's capacity from the answer's headers.
	 */
	void answered(Grant grant, long tokensUsed, @Nullable Function<String, @Nullable String> header) {
		if (this.partition != null) {
			this.pools.answered(this.partition, grant, tokensUsed, header);
		}
	}

	/**
	 * When to look again at a breaker an operator holds open: no time can be promised, so
	 * its failure domain's longest open duration, a bounded instant a job queue can use.
	 */
	private Instant heldUntil(Instant now) {
		return now.plus(this.breaker.settings().openDurationMax());
	}

	private static Instant later(Instant a, Instant b) {
		return b.isAfter(a) ? b : a;
	}

	/** What this target looks like at {@code now}. */
	TargetState state(Instant now) {
		BreakerState breaker = breakerState(this.breaker, now);
		ScopeState scope = scopeState(this.scope, now);
		AccountState account = accountState(this.account, now);
		long[] window = this.budget.window();
		boolean usable = isUsable();
		// Unusable with no known end means a breaker held open: it waits for an operator.
		Instant availableAt = null;
		if (!usable) {
			Instant at = now;
			for (Instant each : new Instant[] { breaker.availableAt(), scope.gatedUntil(), account.parkedUntil(),
					account.lockedUntil() }) {
				if (each != null && each.isAfter(at)) {
					at = each;
				}
			}
			availableAt = at.isAfter(now) ? at : null;
		}
		return new TargetState(name(), this.target.provider(), this.target.model(), this.target.region(), usable,
				availableAt, breaker, scope, account, new RetryBudgetState(window[0], window[1]),
				timeoutState(this.attemptTimeout), timeoutState(this.firstTokenTimeout), this.admission.state());
	}

	private static BreakerState breakerState(Breaker breaker, Instant now) {
		CircuitBreaker.Metrics metrics = breaker.circuitBreaker().getMetrics();
		Instant at = breaker.isUsable() ? null : breaker.availableAt(now);
		return new BreakerState(breaker.domain(), BreakerState.Status.valueOf(breaker.state().name()),
				metrics.getFailureRate(), metrics.getSlowCallRate(), metrics.getNumberOfBufferedCalls(),
				metrics.getNumberOfSuccessfulCalls(), metrics.getNumberOfFailedCalls(), metrics.getNumberOfSlowCalls(),
				metrics.getNumberOfSlowSuccessfulCalls(), metrics.getNumberOfNotPermittedCalls(),
				(at != null && at.isAfter(now)) ? at : null, breaker.settings(),
				breaker.isOpenOnSpend() ? BreakerState.SPEND : null);
	}

	static ScopeState scopeState(ThrottleGate.Scope scope, Instant now) {
		return new ScopeState(scope.key(), future(scope.gatedUntil(), now));
	}

	static AccountState accountState(AccountStatus account, Instant now) {
		Instant parkedUntil = future(account.parkedUntil(), now);
		Instant lockedUntil = future(account.lockedUntil(), now);
		return new AccountState(account.name(), parkedUntil, (parkedUntil != null) ? account.parkReason() : null,
				lockedUntil, (lockedUntil != null) ? account.lockReason() : null,
				account.consecutiveCredentialErrors());
	}

	private static TimeoutState timeoutState(MeasuredTimeout timeout) {
		MeasuredTimeout.Snapshot snapshot = timeout.snapshot();
		return new TimeoutState(snapshot.current(), snapshot.configured(), snapshot.p99(), snapshot.samples(),
				snapshot.timeouts(), snapshot.measured(), snapshot.backedOff());
	}

	/**
	 * The instant when it lies ahead, else {@code null}; never {@link Instant#MAX}
	 * ("never").
	 */
	private static @Nullable Instant future(@Nullable Instant instant, Instant now) {
		return (instant != null && instant.isAfter(now) && !instant.equals(Instant.MAX)) ? instant : null;
	}

}
