package io.github.llmresilience.timeout;

import java.time.Duration;
import java.util.Arrays;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class MeasuredTimeoutTest {

	/** An absolute floor of 1 s only. */
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
				Duration.ofSeconds(30), Duration.ofSeconds(2), 200, true));
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

	@Property(tries = 2_000)
	void selectionFindsTheSameNearestRankAsSorting(@ForAll @Size(min = 1, max = 300) long[] values,
			@ForAll @LongRange(min = 1, max = 100) long percent) {
		double rank = percent / 100.0;
		long[] sorted = values.clone();
		Arrays.sort(sorted);
		int index = Math.max(0, (int) Math.ceil(rank * sorted.length) - 1);
		assertThat(LatencyRecord.percentile(values.clone(), rank)).isEqualTo(sorted[index]);
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
