package io.github.llmresilience.overload.internal;

import java.util.function.LongSupplier;

import io.github.llmresilience.overload.Admission;
import io.github.llmresilience.overload.OverloadState;
import io.github.llmresilience.pool.PoolSettings;
import org.jspecify.annotations.Nullable;

/**
 * One target's admission: its provider account's local refusal first (it holds nothing),
 * then a place under its failure domain's limit. Either may be absent (off).
 * <p>
 * The limit's algorithms take a request's start only as a clock for their own windows,
 * and the walk passes the latency it measured: the start is told as the settlement's time
 * less that latency, and an admission keeps nothing per request.
 */
public final class TargetAdmission implements Admission {

	private final @Nullable ProviderThrottle throttle;

	private final @Nullable DomainLimit limit;

	private final LongSupplier nanoTime;

	public TargetAdmission(@Nullable ProviderThrottle throttle, @Nullable DomainLimit limit, LongSupplier nanoTime) {
		this.throttle = throttle;
		this.limit = limit;
		this.nanoTime = nanoTime;
	}

	@Override
	public @Nullable Refusal tryAdmit(String pool) {
		if (this.throttle != null && !this.throttle.tryPass(pool)) {
			return Refusal.SHED;
		}
		if (this.limit != null && !this.limit.tryAcquire(PoolSettings.INTERACTIVE.equals(pool))) {
			return Refusal.LIMITED;
		}
		return null;
	}

	@Override
	public void settle(long nanos, Result result) {
		if (this.limit != null) {
			this.limit.settle(this.nanoTime.getAsLong() - Math.max(0, nanos), nanos, result != Result.ANSWERED);
		}
		if (this.throttle != null) {
			this.throttle.settled(result != Result.OVERLOADED);
		}
	}

	@Override
	public void release() {
		if (this.limit != null) {
			this.limit.release();
		}
	}

	@Override
	public long retryNanos() {
		long nanos = 0;
		if (this.limit != null && this.limit.inFlight() >= this.limit.limit()) {
			nanos = this.limit.retryNanos();
		}
		if (this.throttle != null && this.throttle.state()[0] > 0) {
			nanos = Math.max(nanos, this.throttle.retryNanos());
		}
		return nanos;
	}

	@Override
	public long slotNanos() {
		return (this.limit != null && this.limit.inFlight() >= this.limit.limit()) ? this.limit.retryNanos() : 0;
	}

	@Override
	public @Nullable OverloadState state() {
		double[] throttled = (this.throttle != null) ? this.throttle.state() : new double[] { -1, -1, -1 };
		return new OverloadState((this.limit != null) ? this.limit.limit() : -1,
				(this.limit != null) ? this.limit.inFlight() : -1, throttled[0], (long) throttled[1],
				(long) throttled[2]);
	}

}
