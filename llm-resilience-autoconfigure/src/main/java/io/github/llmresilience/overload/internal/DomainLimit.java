package io.github.llmresilience.overload.internal;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

import com.netflix.concurrency.limits.Limit;
import com.netflix.concurrency.limits.limit.AIMDLimit;
import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limit.VegasLimit;
import io.github.llmresilience.overload.ConcurrencySettings;

/**
 * One failure domain's limit on calls in flight from this pod, learned by a
 * concurrency-limits {@link Limit} from each answer's latency and whether it was a drop
 * (an overload or availability failure, or an answer slower than the breaker's slow-call
 * threshold). Refusals, quota and the caller's own errors are no sample: they say nothing
 * of the domain's queue.
 * <p>
 * A place is taken without a lock (compare-and-set under the limit) and given back by the
 * request's one settlement; the limit's own sample is synchronized inside the library.
 */
public final class DomainLimit {

	/** AIMD's own timeout drop, out of the way: slowness comes as a drop from us. */
	private static final long NO_TIMEOUT_HOURS = 24;

	private final String domain;

	private final ConcurrencySettings settings;

	/** The learning limit: replaced, fresh, when the domain's history is forgotten. */
	private volatile Limit limit;

	private final AtomicInteger inFlight = new AtomicInteger();

	/** The limit, as last learned: read on every admission without the library's lock. */
	private volatile int current;

	/**
	 * The highest limit while the domain was not held at half of it: the limit falling to
	 * half of it is a state change; AIMD's sawtooth below it is not, until the limit has
	 * climbed back to it.
	 */
	private int peak;

	/** Whether the limit is held at half its peak or less, since it was told. */
	private boolean held;

	/** A smoothed latency of answered requests, in nanoseconds: the retry hint's base. */
	private volatile long latencyNanos;

	private final IntConsumer halved;

	/**
	 * @param halved told the new limit when it has halved since the last time it was told
	 */
	public DomainLimit(String domain, ConcurrencySettings settings, IntConsumer halved) {
		this.domain = domain;
		this.settings = settings;
		this.halved = halved;
		this.limit = learning();
		this.current = this.limit.getLimit();
		this.peak = this.current;
	}

	private Limit learning() {
		Limit limit = limit(this.settings);
		limit.notifyOnChange((value) -> {
			if (this.limit == limit) {
				changed(value);
			}
		});
		return limit;
	}

	/** Start over from the initial limit: what was learned is forgotten. */
	public void forget() {
		Limit fresh = learning();
		synchronized (this) {
			this.limit = fresh;
			this.current = fresh.getLimit();
			this.peak = this.current;
			this.held = false;
		}
	}

	private static Limit limit(ConcurrencySettings settings) {
		return switch (settings.algorithm()) {
			case AIMD -> AIMDLimit.newBuilder()
				.initialLimit(settings.initialLimit())
				.minLimit(settings.minLimit())
				.maxLimit(settings.maxLimit())
				.backoffRatio(settings.backoffRatio())
				.timeout(NO_TIMEOUT_HOURS, TimeUnit.HOURS)
				.build();
			case VEGAS -> VegasLimit.newBuilder()
				.initialLimit(settings.initialLimit())
				.maxConcurrency(settings.maxLimit())
				.build();
			case GRADIENT2 -> Gradient2Limit.newBuilder()
				.initialLimit(settings.initialLimit())
				.minLimit(settings.minLimit())
				.maxConcurrency(settings.maxLimit())
				.build();
		};
	}

	private void changed(int limit) {
		this.current = limit;
		boolean tell;
		synchronized (this) {
			if (this.held) {
				// Told already: quiet until the limit is back where it fell from.
				tell = false;
				this.held = limit < this.peak;
			}
			else {
				this.peak = Math.max(this.peak, limit);
				tell = limit * 2 <= this.peak;
				this.held = tell;
			}
		}
		if (tell) {
			this.halved.accept(limit);
		}
	}

	public String domain() {
		return this.domain;
	}

	/**
	 * Take a place under the limit, for an interactive call.
	 * @return whether one was free
	 */
	public boolean tryAcquire() {
		return tryAcquire(true);
	}

	/**
	 * Take a place under the limit. A call that is not interactive leaves a tenth of the
	 * limit (rounded down) to interactive calls: at the limit, interactive calls get the
	 * places that free up before other traffic.
	 * @return whether one was free
	 */
	public boolean tryAcquire(boolean interactive) {
		for (;;) {
			int now = this.inFlight.get();
			int limit = this.current;
			if (now >= (interactive ? limit : limit - limit / 10)) {
				return false;
			}
			if (this.inFlight.compareAndSet(now, now + 1)) {
				return true;
			}
		}
	}

	/**
	 * Give a place back and learn from the request.
	 * @param nanos its latency; negative for none
	 * @param drop whether it was a drop
	 */
	public void settle(long startNanos, long nanos, boolean drop) {
		int inFlight = this.inFlight.getAndDecrement();
		if (nanos >= 0) {
			this.limit.onSample(startNanos, nanos, inFlight, drop);
			if (!drop) {
				long smoothed = this.latencyNanos;
				this.latencyNanos = (smoothed == 0) ? nanos : smoothed + (nanos - smoothed) / 8;
			}
		}
		else if (drop) {
			this.limit.onSample(startNanos, 0, inFlight, true);
		}
	}

	/** Give a place back without a sample. */
	public void release() {
		this.inFlight.decrementAndGet();
	}

	public int limit() {
		return this.current;
	}

	public int inFlight() {
		return this.inFlight.get();
	}

	/**
	 * How long until a place may free up: a request's smoothed latency shared by the
	 * requests in flight (one ends about that often), at least 10 ms.
	 */
	public long retryNanos() {
		long latency = this.latencyNanos;
		int inFlight = Math.max(1, this.inFlight.get());
		return Math.max(10_000_000L, latency / inFlight);
	}

}
