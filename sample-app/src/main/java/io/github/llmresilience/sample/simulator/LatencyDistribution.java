package io.github.llmresilience.sample.simulator;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * How long a simulated answer takes: log-normal, like the latencies of recorded real chat
 * calls, cut at their maximum.
 *
 * @param median the median latency
 * @param sigma the spread of the latency's logarithm
 * @param max the longest latency
 */
public record LatencyDistribution(Duration median, double sigma, Duration max) {

	/**
	 * Recorded real calls: p95 about 1.5 s, none above 2.2 s. A median of 800 ms with
	 * sigma 0.38 puts p95 at 800 ms * e^(1.645 * 0.38) = 1.49 s.
	 */
	public static final LatencyDistribution REAL_CALLS = new LatencyDistribution(Duration.ofMillis(800), 0.38,
			Duration.ofMillis(2200));

	/**
	 * The mean latency at scale 1: a log-normal's, {@code median * e^(sigma^2 / 2)}, cut
	 * at the maximum (which lies beyond p99 and moves the mean by under a percent). What
	 * a drill needs to turn calls in flight into calls a second.
	 */
	public Duration mean() {
		double millis = this.median.toMillis() * Math.exp(this.sigma * this.sigma / 2);
		return Duration.ofNanos((long) (Math.min(millis, this.max.toMillis()) * 1_000_000));
	}

	/** One latency, multiplied by the scale (1 for real time). */
	public Duration sample(RandomGenerator random, double scale) {
		double millis = this.median.toMillis() * Math.exp(this.sigma * random.nextGaussian());
		millis = Math.min(millis, this.max.toMillis());
		return Duration.ofNanos((long) (millis * scale * 1_000_000));
	}

}
