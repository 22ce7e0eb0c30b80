package io.github.llmresilience.timeout;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

/**
 * One timeout of one target (the attempt's total, or a stream's first token), measured
 * rather than guessed: the configured value until enough calls are recorded, then
 * {@code clamp(multiplier * p99, floor, configured)}, widened for a while after a
 * timeout. The configured value stays the ceiling, so measurement never loosens beyond
 * it.
 *
 * <p>
 * Learning only from successes made the timeout a ratchet: a timed-out call leaves no
 * sample, so once short prompts had pulled the timeout down, the longer calls that now
 * exceeded it could never pull it back up, and every one of them failed until a restart.
 * LLM latency grows with the length of the answer, so that is the normal case, not a
 * corner. The fix follows TCP's retransmission timer (RFC 6298 §5.5 and Karn's
 * algorithm), whose problem is the same: a timer learnt from answers that must not starve
 * the answers it cuts off.
 * <ul>
 * <li>A timeout is evidence too: the call took <em>at least</em> as long as it ran. It is
 * recorded as a censored sample at that length, so when timeouts are more than about 1 %
 * of recent calls the p99 itself reaches the old timeout and the multiplier lifts the
 * next one above it: sustained timeouts relax the value toward the configured one.</li>
 * <li>The percentile is recomputed only every {@link LatencyRecord#REFRESH} samples, and
 * a single censored sample among a thousand does not move a p99, so on its own that would
 * react far too late. A timeout therefore also backs the timer off at once, to twice as
 * long as the attempt ran (capped at the configured value), as RFC 6298 §5.5 doubles the
 * RTO. Doubling the length that timed out rather than the value in force means a burst of
 * concurrent attempts that time out together widens it once, not once per attempt; a
 * timeout at the widened value doubles it again.</li>
 * <li>Karn's point is that samples taken right after a backoff must not undo it before
 * they say anything about the latency that timed out. The widened value is held until
 * {@code 2 * REFRESH} more samples are recorded, so the percentile has been recomputed
 * over at least {@code REFRESH} calls made after the timeout, then halves every
 * {@code REFRESH} samples. The measurement takes over as soon as it is the higher value,
 * which it is when the slow calls keep coming; when they were a one-off, the timeout
 * tightens again step by step instead of snapping back to the value that just
 * failed.</li>
 * <li>The decay counts samples, not time: without traffic there is no new evidence, and
 * staying widened (never beyond the configured value) is the safe side to wait on. So no
 * clock is read on any path.</li>
 * </ul>
 *
 * <p>
 * The floor is the higher of an absolute duration and a fraction of the configured value
 * ({@link AdaptiveSettings#floorRatio()}, a fifth by default): the measurement describes
 * the prompts seen so far, and a rare long answer must not need a timeout and a backoff
 * before it can succeed. A hang still costs at most a fifth of the configured timeout.
 *
 * <p>
 * {@link #current()} runs on every attempt and {@link #record(long)} on every success:
 * both are a few field reads and arithmetic, without a lock or an allocation (a new
 * {@code Duration} only when the value changes). {@link #recordTimeout(long)} allocates
 * one small object when it widens the timeout: a timeout already cost a whole attempt,
 * and an immutable pair swapped by compare-and-set keeps the widened value and the sample
 * it was set at consistent without a lock.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public final class MeasuredTimeout {

	/** Samples recorded after a timeout during which the widened value holds in full. */
	static final long BACKOFF_HOLD = 2L * LatencyRecord.REFRESH;

	/** Samples after which a widened value, once its hold is over, halves again. */
	static final long BACKOFF_HALVING = LatencyRecord.REFRESH;

	private final Duration configured;

	private final AdaptiveSettings adaptive;

	private final LatencyRecord latencies = new LatencyRecord();

	private final AtomicLong timeouts = new AtomicLong();

	private final long ceilingNanos;

	private final long floorNanos;

	/** The widening of the last timeout that widened; {@code null} before any. */
	private final AtomicReference<@Nullable Backoff> backoff = new AtomicReference<>();

	/** The timeout last handed out: a Duration made once per value. */
	private volatile Cached cached = new Cached(-1, null);

	public MeasuredTimeout(Duration configured, AdaptiveSettings adaptive) {
		this.configured = configured;
		this.adaptive = adaptive;
		this.ceilingNanos = configured.toNanos();
		long relativeFloor = (long) (adaptive.floorRatio() * this.ceilingNanos);
		this.floorNanos = Math.min(this.ceilingNanos, Math.max(adaptive.floor().toNanos(), relativeFloor));
	}

	/** Record one successful call's latency. */
	public void record(long nanos) {
		this.latencies.record(nanos);
	}

	/**
	 * Record one attempt (or one stream's wait for its first element) that timed out: a
	 * censored sample, and a widening of the timeout.
	 * @param nanos how long the attempt ran before it timed out, about the timeout in
	 * force
	 */
	public void recordTimeout(long nanos) {
		long ran = Math.max(0, nanos);
		this.timeouts.incrementAndGet();
		this.latencies.record(ran);
		if (!this.adaptive.enabled()) {
			return;
		}
		long samples = this.latencies.samples();
		long widened = (ran >= this.ceilingNanos / 2) ? this.ceilingNanos : 2 * ran;
		while (true) {
			Backoff previous = this.backoff.get();
			// Attempts that timed out together at the same value widen it once.
			if (previous != null && previous.at(samples) >= widened) {
				return;
			}
			if (this.backoff.compareAndSet(previous, new Backoff(widened, samples))) {
				return;
			}
		}
	}

	/** The timeout to use now. */
	public Duration current() {
		long samples = this.latencies.samples();
		if (!this.adaptive.enabled() || samples < this.adaptive.minSamples()) {
			return this.configured;
		}
		long nanos = Math.max(fromPercentile(), backedOff(samples));
		Cached cached = this.cached;
		if (cached.nanos != nanos) {
			cached = new Cached(nanos, Duration.ofNanos(nanos));
			this.cached = cached;
		}
		return cached.timeout;
	}

	/** {@code clamp(multiplier * p99, floor, configured)}. */
	private long fromPercentile() {
		double measured = this.adaptive.multiplier() * this.latencies.p99Nanos();
		return (long) Math.max(this.floorNanos, Math.min(this.ceilingNanos, measured));
	}

	/** The widening still in force after {@code samples} samples; zero when none. */
	private long backedOff(long samples) {
		Backoff backoff = this.backoff.get();
		return (backoff != null) ? backoff.at(samples) : 0;
	}

	public Duration configured() {
		return this.configured;
	}

	/**
	 * How long attempts take: the 99th percentile of recent calls, in nanoseconds; zero
	 * before any is recorded.
	 */
	public long takesNanos() {
		return (this.latencies.samples() > 0) ? this.latencies.p99Nanos() : 0;
	}

	/**
	 * The 95th percentile of recent calls in nanoseconds, and how many calls it is taken
	 * over ({@link #samples()}): a hedge's delay when none is configured.
	 */
	public long p95Nanos() {
		return this.latencies.p95Nanos();
	}

	/** Calls recorded since the start: successes, and timeouts as censored samples. */
	public long samples() {
		return this.latencies.samples();
	}

	public LatencyRecord latencies() {
		return this.latencies;
	}

	/**
	 * The current value, its p99, its sample and timeout counts, whether measurement is
	 * in force and whether a timeout holds it widened.
	 */
	public Snapshot snapshot() {
		long samples = this.latencies.samples();
		boolean measured = this.adaptive.enabled() && samples >= this.adaptive.minSamples();
		boolean backedOff = measured && backedOff(samples) > fromPercentile();
		return new Snapshot(current(), this.configured, this.latencies.p99(), samples, this.timeouts.get(), measured,
				backedOff);
	}

	/**
	 * A timeout as it stands.
	 *
	 * @param current the timeout in force
	 * @param configured the configured (static, ceiling) value
	 * @param p99 the 99th percentile of recent calls, timed-out ones counted at the
	 * length they ran
	 * @param samples calls recorded: successes and timeouts
	 * @param timeouts timeouts recorded
	 * @param measured whether {@code current} comes from measurement
	 * @param backedOff whether a recent timeout holds {@code current} above the measured
	 * value
	 */
	public record Snapshot(Duration current, Duration configured, Duration p99, long samples, long timeouts,
			boolean measured, boolean backedOff) {
	}

	private record Cached(long nanos, @Nullable Duration timeout) {
	}

	/** A widening: {@code nanos}, set when {@code since} samples had been recorded. */
	private record Backoff(long nanos, long since) {

		/** The widening after {@code samples} samples: held, then halved step by step. */
		long at(long samples) {
			long after = samples - this.since;
			if (after < BACKOFF_HOLD) {
				return this.nanos;
			}
			long halvings = (after - BACKOFF_HOLD) / BACKOFF_HALVING + 1;
			return (halvings >= Long.SIZE) ? 0 : this.nanos >>> halvings;
		}

	}

}
