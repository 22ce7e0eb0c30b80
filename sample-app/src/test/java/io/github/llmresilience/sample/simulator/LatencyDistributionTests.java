package io.github.llmresilience.sample.simulator;

import java.time.Duration;
import java.util.Arrays;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The simulated latencies have the shape of the recorded real calls: p95 about 1.5 s,
 * none above 2.2 s; the scale shortens them all alike.
 */
class LatencyDistributionTests {

	@Test
	void p95IsAboutOneAndAHalfSecondsAndNothingExceedsTheMaximum() {
		long[] millis = samples(1.0);

		assertThat(percentile(millis, 0.95)).isBetween(1400L, 1600L);
		assertThat(millis[millis.length - 1]).isLessThanOrEqualTo(2200L);
		assertThat(percentile(millis, 0.50)).isBetween(750L, 850L);
	}

	@Test
	void theScaleShortensEveryLatency() {
		long[] millis = samples(0.05);

		assertThat(percentile(millis, 0.95)).isBetween(70L, 80L);
		assertThat(millis[millis.length - 1]).isLessThanOrEqualTo(110L);
	}

	/** The mean the drills turn calls in flight into a rate with is the samples' mean. */
	@Test
	void theMeanIsTheSamplesMean() {
		long[] millis = samples(1.0);
		double sampled = Arrays.stream(millis).average().orElseThrow();

		assertThat(LatencyDistribution.REAL_CALLS.mean().toMillis()).isBetween(850L, 870L)
			.isCloseTo((long) sampled, org.assertj.core.data.Offset.offset(15L));
	}

	private static long[] samples(double scale) {
		SplittableRandom random = new SplittableRandom(42);
		long[] millis = new long[20_000];
		for (int i = 0; i < millis.length; i++) {
			Duration latency = LatencyDistribution.REAL_CALLS.sample(random, scale);
			millis[i] = latency.toMillis();
		}
		Arrays.sort(millis);
		return millis;
	}

	private static long percentile(long[] sorted, double share) {
		return sorted[(int) Math.ceil(share * sorted.length) - 1];
	}

}
