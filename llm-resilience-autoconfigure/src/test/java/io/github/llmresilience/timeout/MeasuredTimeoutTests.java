package io.github.llmresilience.timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.llmresilience.test.SeededTries;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class MeasuredTimeoutTests {

	/**
	 * An absolute floor of 1 s only: the setting under which the timeout used to ratchet
	 * down.
	 */
	private static final AdaptiveSettings ADAPTIVE = new AdaptiveSettings(true, 200, 3.0, Duration.ofSeconds(1), 0);

	private static final long FAST = Duration.ofMillis(100).toNanos();

	private static final long LONG = Duration.ofMillis(1500).toNanos();

	@Test
	void theConfiguredValueHoldsUntilEnoughSamples() {
		MeasuredTimeout timeout = new MeasuredTimeout(Duration.ofSeconds(30), ADAPTIVE);
		for (int i = 0; i < 199; i++) {
			timeout.record(Duration.ofSeconds(2).toNanos());
		}
		assertThat(timeout.current()).isEqualTo(Duration.ofSeconds(30));
		assertThat(timeout.snapshot().measured()).isFalse();
		timeout.record(Duration.ofSeconds(2).toNanos());
		assertThat(timeout.current()).isEqualTo(Duration.ofSeconds(6));
		assertThat(timeout.snapshot()).isEqualTo(new MeasuredTimeout.Snapshot(Duration.ofSeconds(6),
				Duration.ofSeconds(30), Duration.ofSeconds(2), 200, 0, true, false));
	}

	@Test
	void measurementNeverLoosensBeyondTheConfiguredValue() {
		MeasuredTimeout timeout = new MeasuredTimeout(Duration.ofSeconds(30), ADAPTIVE);
		for (int i = 0; i < 300; i++) {
			timeout.record(Duration.ofSeconds(25).toNanos());
		}
		assertThat(timeout.current()).isEqualTo(Duration.ofSeconds(30));
	}

	@Test
	void measurementNeverTightensBelowTheFloor() {
		MeasuredTimeout timeout = new MeasuredTimeout(Duration.ofSeconds(30), ADAPTIVE);
		for (int i = 0; i < 300; i++) {
			timeout.record(Duration.ofMillis(50).toNanos());
		}
		assertThat(timeout.current()).isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void whenDisabledTheConfiguredValueAlwaysHolds() {
		MeasuredTimeout timeout = new MeasuredTimeout(Duration.ofSeconds(30), AdaptiveSettings.disabled());
		for (int i = 0; i < 300; i++) {
			timeout.record(Duration.ofSeconds(2).toNanos());
		}
		assertThat(timeout.current()).isEqualTo(Duration.ofSeconds(30));
	}

	@Test
	void longCallsAfterFastOnesTimeOutOnceThenTheTimeoutStaysAboveThem() {
		MeasuredTimeout timeout = warmedUp(ADAPTIVE, FAST);
		assertThat(timeout.current()).isEqualTo(Duration.ofSeconds(1));
		List<Duration> timedOutAt = new ArrayList<>();
		List<Duration> afterFirstTimeout = new ArrayList<>();
		for (int i = 0; i < 2_000; i++) {
			Duration limit = timeout.current();
			if (!timedOutAt.isEmpty()) {
				afterFirstTimeout.add(limit);
			}
			if (LONG > limit.toNanos()) {
				timeout.recordTimeout(limit.toNanos());
				timedOutAt.add(limit);
				assertThat(timeout.snapshot().backedOff()).isTrue();
			}
			else {
				timeout.record(LONG);
			}
		}
		assertThat(timedOutAt).containsExactly(Duration.ofSeconds(1));
		// Doubled at once, held until the percentile has seen the long calls, then 3 x
		// p99.
		assertThat(afterFirstTimeout.get(0)).isEqualTo(Duration.ofSeconds(2));
		assertThat(afterFirstTimeout).allSatisfy((limit) -> assertThat(limit).isGreaterThan(Duration.ofMillis(1500)));
		assertThat(timeout.current()).isEqualTo(Duration.ofMillis(4500));
		MeasuredTimeout.Snapshot snapshot = timeout.snapshot();
		assertThat(snapshot.timeouts()).isEqualTo(1);
		assertThat(snapshot.samples()).isEqualTo(2_200);
		assertThat(snapshot.backedOff()).isFalse();
	}

	@Test
	void whenTheLongCallsStopItTightensStepByStepDownToTheFloor() {
		MeasuredTimeout timeout = warmedUp(ADAPTIVE, FAST);
		timeout.recordTimeout(timeout.current().toNanos());
		for (int i = 0; i < LatencyRecord.CAPACITY; i++) {
			timeout.record(LONG);
		}
		assertThat(timeout.current()).isEqualTo(Duration.ofMillis(4500));
		Duration previous = timeout.current();
		int fastCalls = 0;
		while (timeout.current().compareTo(Duration.ofSeconds(1)) > 0) {
			timeout.record(FAST);
			fastCalls++;
			Duration now = timeout.current();
			assertThat(now).isLessThanOrEqualTo(previous).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
			previous = now;
			assertThat(fastCalls).isLessThan(2 * LatencyRecord.CAPACITY);
		}
		// Not before the long calls have left the ring: fewer than 1 % of it may remain.
		assertThat(fastCalls).isGreaterThanOrEqualTo(LatencyRecord.CAPACITY - 10);
		for (int i = 0; i < 10 * LatencyRecord.CAPACITY; i++) {
			timeout.record(FAST);
			assertThat(timeout.current()).isEqualTo(Duration.ofSeconds(1));
		}
	}

	@Test
	void aOneOffTimeoutIsHeldForTwoRefreshesThenHalvesEveryRefresh() {
		MeasuredTimeout timeout = warmedUp(new AdaptiveSettings(true, 200, 3.0, Duration.ofMillis(100), 0), FAST);
		assertThat(timeout.current()).isEqualTo(Duration.ofMillis(300));
		timeout.recordTimeout(Duration.ofSeconds(2).toNanos());
		List<Duration> steps = new ArrayList<>();
		steps.add(timeout.current());
		for (int i = 1; i <= 6 * LatencyRecord.REFRESH; i++) {
			timeout.record(FAST);
			if (i % LatencyRecord.REFRESH == LatencyRecord.REFRESH - 1) {
				steps.add(timeout.current());
			}
		}
		// Sampled one call before each refresh boundary: 255, 511, 767, ... calls after
		// the timeout.
		assertThat(steps).containsExactly(Duration.ofSeconds(4), Duration.ofSeconds(4), Duration.ofSeconds(4),
				Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ofMillis(500), Duration.ofMillis(300));
		assertThat(timeout.snapshot().backedOff()).isFalse();
	}

	@Test
	void repeatedTimeoutsDoubleItUpToTheConfiguredValueAndNeverBeyond() {
		MeasuredTimeout timeout = warmedUp(ADAPTIVE, FAST);
		List<Duration> limits = new ArrayList<>();
		for (int i = 0; i < 7; i++) {
			limits.add(timeout.current());
			timeout.recordTimeout(timeout.current().toNanos());
		}
		assertThat(limits).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(4),
				Duration.ofSeconds(8), Duration.ofSeconds(16), Duration.ofSeconds(30), Duration.ofSeconds(30));
		timeout.recordTimeout(Long.MAX_VALUE);
		assertThat(timeout.current()).isEqualTo(Duration.ofSeconds(30));
		// Timeouts that dominate the ring hold it at the configured value through the
		// percentile.
		for (int i = 0; i < LatencyRecord.CAPACITY; i++) {
			timeout.recordTimeout(timeout.current().toNanos());
			assertThat(timeout.current()).isLessThanOrEqualTo(Duration.ofSeconds(30));
		}
		assertThat(timeout.current()).isEqualTo(Duration.ofSeconds(30));
		assertThat(timeout.latencies().p99()).isEqualTo(Duration.ofSeconds(30));
	}

	@Test
	void attemptsThatTimeOutTogetherWidenItOnce() {
		MeasuredTimeout timeout = warmedUp(ADAPTIVE, FAST);
		assertThat(timeout.current()).isEqualTo(Duration.ofSeconds(1));
		for (int i = 0; i < 50; i++) {
			timeout.recordTimeout(Duration.ofSeconds(1).toNanos());
		}
		assertThat(timeout.current()).isEqualTo(Duration.ofSeconds(2));
		assertThat(timeout.snapshot().timeouts()).isEqualTo(50);
		// A fifth of the ring timed out: once the percentile is recomputed it lifts the
		// timeout.
		for (int i = 0; i < LatencyRecord.REFRESH; i++) {
			timeout.record(FAST);
		}
		assertThat(timeout.latencies().p99()).isEqualTo(Duration.ofSeconds(1));
		assertThat(timeout.current()).isEqualTo(Duration.ofSeconds(3));
	}

	@Test
	void aTimeoutShorterThanTheWideningInForceChangesNothing() {
		MeasuredTimeout timeout = warmedUp(ADAPTIVE, FAST);
		timeout.recordTimeout(Duration.ofSeconds(4).toNanos());
		timeout.recordTimeout(Duration.ofMillis(200).toNanos());
		assertThat(timeout.current()).isEqualTo(Duration.ofSeconds(8));
	}

	@Test
	void timeoutsDuringWarmUpCountAsSamplesAndTheConfiguredValueHolds() {
		MeasuredTimeout timeout = new MeasuredTimeout(Duration.ofSeconds(30), ADAPTIVE);
		for (int i = 0; i < 150; i++) {
			timeout.record(FAST);
		}
		for (int i = 0; i < 49; i++) {
			timeout.recordTimeout(Duration.ofSeconds(30).toNanos());
			assertThat(timeout.current()).isEqualTo(Duration.ofSeconds(30));
		}
		timeout.recordTimeout(Duration.ofSeconds(30).toNanos());
		MeasuredTimeout.Snapshot snapshot = timeout.snapshot();
		assertThat(snapshot.measured()).isTrue();
		assertThat(snapshot.samples()).isEqualTo(200);
		assertThat(snapshot.timeouts()).isEqualTo(50);
		assertThat(snapshot.current()).isEqualTo(Duration.ofSeconds(30));
	}

	@Test
	void byDefaultTheFloorIsAFifthOfTheConfiguredValueAndAtLeastOneSecond() {
		assertThat(AdaptiveSettings.defaults().floorRatio()).isEqualTo(0.2);
		assertThat(warmedUp(Duration.ofSeconds(30), AdaptiveSettings.defaults(), FAST).current())
			.isEqualTo(Duration.ofSeconds(6));
		assertThat(warmedUp(Duration.ofSeconds(10), AdaptiveSettings.defaults(), FAST).current())
			.isEqualTo(Duration.ofSeconds(2));
		assertThat(warmedUp(Duration.ofSeconds(3), AdaptiveSettings.defaults(), FAST).current())
			.isEqualTo(Duration.ofSeconds(1));
		// The long calls never time out under the default floor.
		assertThat(warmedUp(Duration.ofSeconds(30), AdaptiveSettings.defaults(), FAST).current().toNanos())
			.isGreaterThan(LONG);
	}

	@Test
	void theFloorNeverExceedsTheConfiguredValue() {
		assertThat(warmedUp(Duration.ofMillis(500), ADAPTIVE, FAST).current()).isEqualTo(Duration.ofMillis(500));
		AdaptiveSettings wholeValue = new AdaptiveSettings(true, 200, 3.0, Duration.ofMillis(1), 1.0);
		assertThat(warmedUp(Duration.ofSeconds(30), wholeValue, FAST).current()).isEqualTo(Duration.ofSeconds(30));
	}

	@Test
	void concurrentSuccessesAndTimeoutsKeepItWithinFloorAndCeiling() throws Exception {
		int threads = 4;
		int callsPerThread = 20_000;
		MeasuredTimeout timeout = new MeasuredTimeout(Duration.ofSeconds(30), ADAPTIVE);
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<long[]>> results = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				long seed = t;
				results.add(executor.submit(() -> {
					SplittableRandom random = new SplittableRandom(seed);
					start.await();
					long longCalls = 0;
					long timedOut = 0;
					for (int i = 0; i < callsPerThread; i++) {
						Duration limit = timeout.current();
						assertThat(limit).isBetween(Duration.ofSeconds(1), Duration.ofSeconds(30));
						// Mostly short answers; one in 200 a long one, too rare to reach
						// the p99.
						boolean isLong = random.nextInt(200) == 0;
						long latency = isLong ? LONG : random.nextLong(FAST / 2, FAST * 3);
						longCalls += isLong ? 1 : 0;
						if (latency > limit.toNanos()) {
							timeout.recordTimeout(limit.toNanos());
							timedOut++;
						}
						else {
							timeout.record(latency);
						}
					}
					return new long[] { longCalls, timedOut };
				}));
			}
			start.countDown();
			long longCalls = 0;
			long timedOut = 0;
			for (Future<long[]> result : results) {
				long[] counts = result.get(60, TimeUnit.SECONDS);
				longCalls += counts[0];
				timedOut += counts[1];
			}
			MeasuredTimeout.Snapshot snapshot = timeout.snapshot();
			assertThat(snapshot.samples()).isEqualTo((long) threads * callsPerThread);
			assertThat(snapshot.timeouts()).isEqualTo(timedOut);
			assertThat(snapshot.current()).isBetween(Duration.ofSeconds(1), Duration.ofSeconds(30));
			// Each timeout keeps the timeout widened for a while: most long calls get
			// through.
			assertThat(timedOut).isPositive().isLessThan(longCalls / 2);
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void theRingFollowsRecentLatencyNotAllHistory() {
		LatencyRecord record = new LatencyRecord();
		for (int i = 0; i < LatencyRecord.CAPACITY; i++) {
			record.record(Duration.ofSeconds(10).toNanos());
		}
		for (int i = 0; i < LatencyRecord.CAPACITY; i++) {
			record.record(Duration.ofSeconds(1).toNanos());
		}
		assertThat(record.p99()).isEqualTo(Duration.ofSeconds(1));
		assertThat(record.samples()).isEqualTo(2L * LatencyRecord.CAPACITY);
	}

	@Test
	void selectionFindsTheSameNearestRankAsSorting() {
		SeededTries.run(2_000, (random) -> {
			long[] values = new long[1 + random.nextInt(300)];
			for (int i = 0; i < values.length; i++) {
				values[i] = random.nextLong();
			}
			double rank = (1 + random.nextInt(100)) / 100.0;
			long[] sorted = values.clone();
			Arrays.sort(sorted);
			int index = Math.max(0, (int) Math.ceil(rank * sorted.length) - 1);
			assertThat(LatencyRecord.percentile(values.clone(), rank)).isEqualTo(sorted[index]);
		});
	}

	@Test
	void theOnePassOverTheLargestValuesFindsTheSameNearestRankAsSortingAndMovesNothing() {
		SeededTries.run(2_000, (random) -> {
			long[] values = new long[1 + random.nextInt(LatencyRecord.CAPACITY)];
			for (int i = 0; i < values.length; i++) {
				// Few distinct values too, so that ties at the rank are tried.
				values[i] = random.nextBoolean() ? random.nextLong() : random.nextInt(5);
			}
			double rank = (random.nextInt(4) == 0) ? (1 + random.nextInt(100)) / 100.0 : 0.99;
			long[] before = values.clone();
			long[] sorted = values.clone();
			Arrays.sort(sorted);
			int index = Math.max(0, (int) Math.ceil(rank * sorted.length) - 1);
			assertThat(LatencyRecord.percentile(values, values.length, rank, new long[16])).isEqualTo(sorted[index]);
			assertThat(values).isEqualTo(before);
		});
	}

	@Test
	void readAsTheEngineReadsItThePercentileIsExactOverTheLastRingOfCompleteBlocks() {
		SeededTries.run(20, (random) -> {
			LatencyRecord record = new LatencyRecord();
			long[] values = new long[6 * LatencyRecord.CAPACITY];
			for (int count = 1; count <= values.length; count++) {
				values[count - 1] = (random.nextInt(3) == 0) ? random.nextInt(1_000)
						: (long) Math.abs(random.nextGaussian() * 1e9);
				record.record(values[count - 1]);
				long p99 = record.p99Nanos();
				// Read after every sample, it refreshes at 1, 257, 513, ...: past the
				// first
				// ring, over the 1,024 samples before the one just recorded.
				if (count > LatencyRecord.CAPACITY && (count - 1) % LatencyRecord.REFRESH == 0) {
					long[] ring = Arrays.copyOfRange(values, count - 1 - LatencyRecord.CAPACITY, count - 1);
					Arrays.sort(ring);
					assertThat(p99).as("p99 after %d samples", count)
						.isEqualTo(ring[(int) Math.ceil(0.99 * ring.length) - 1]);
				}
			}
		});
	}

	private static MeasuredTimeout warmedUp(AdaptiveSettings adaptive, long latency) {
		return warmedUp(Duration.ofSeconds(30), adaptive, latency);
	}

	private static MeasuredTimeout warmedUp(Duration configured, AdaptiveSettings adaptive, long latency) {
		MeasuredTimeout timeout = new MeasuredTimeout(configured, adaptive);
		for (int i = 0; i < adaptive.minSamples(); i++) {
			timeout.record(latency);
		}
		return timeout;
	}

}
