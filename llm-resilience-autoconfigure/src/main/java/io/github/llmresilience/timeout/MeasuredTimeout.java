package io.github.llmresilience.timeout;

import java.time.Duration;

/**
 * One timeout of one target (the attempt's total, or a stream's first token), measured
 * rather than guessed: the configured value until enough successful calls are recorded,
 * then {@code clamp(multiplier * p99, floor, configured)}. The configured value stays the
 * ceiling, so measurement can only tighten a timeout.
 */
public final class MeasuredTimeout {

	private final Duration configured;

	private final AdaptiveSettings adaptive;

	private final LatencyRecord latencies = new LatencyRecord();

	private final long ceilingNanos;

	private final long floorNanos;

	/** The measured timeout and the p99 it was made from: a Duration made once per p99. */
	private volatile Cached cached = new Cached(-1, null);

	public MeasuredTimeout(Duration configured, AdaptiveSettings adaptive) {
		this.configured = configured;
		this.adaptive = adaptive;
		this.ceilingNanos = configured.toNanos();
		// A floor relative to the configured value as well: the measurement describes the
		// prompts seen so far, and a rare long answer must not fail because short ones
		// pulled the timeout down. A hang still costs only a fraction of the configured value.
		long relativeFloor = (long) (adaptive.floorRatio() * this.ceilingNanos);
		this.floorNanos = Math.min(this.ceilingNanos, Math.max(adaptive.floor().toNanos(), relativeFloor));
	}

	/** Record one successful call's latency. */
	public void record(long nanos) {
		this.latencies.record(nanos);
	}

	/** The timeout to use now. */
	public Duration current() {
		if (!this.adaptive.enabled() || this.latencies.samples() < this.adaptive.minSamples()) {
			return this.configured;
		}
		long p99 = this.latencies.p99Nanos();
		Cached cached = this.cached;
		if (cached.p99Nanos != p99) {
			double measured = this.adaptive.multiplier() * p99;
			long nanos = (long) Math.max(this.floorNanos, Math.min(this.ceilingNanos, measured));
			cached = new Cached(p99, Duration.ofNanos(nanos));
			this.cached = cached;
		}
		return cached.timeout;
	}

	private record Cached(long p99Nanos, Duration timeout) {
	}

	public Duration configured() {
		return this.configured;
	}

	public LatencyRecord latencies() {
		return this.latencies;
	}

	/** The current value, its p99, its sample count and whether measurement is in force. */
	public Snapshot snapshot() {
		long samples = this.latencies.samples();
		boolean measured = this.adaptive.enabled() && samples >= this.adaptive.minSamples();
		return new Snapshot(current(), this.configured, this.latencies.p99(), samples, measured);
	}

	/**
	 * A timeout as it stands.
	 *
	 * @param current the timeout in force
	 * @param configured the configured (static, ceiling) value
	 * @param p99 the 99th percentile of recent successful calls
	 * @param samples successful calls recorded
	 * @param measured whether {@code current} comes from measurement
	 */
	public record Snapshot(Duration current, Duration configured, Duration p99, long samples, boolean measured) {
	}

}
