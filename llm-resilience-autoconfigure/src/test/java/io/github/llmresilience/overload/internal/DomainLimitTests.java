package io.github.llmresilience.overload.internal;

import java.util.ArrayList;
import java.util.List;

import io.github.llmresilience.overload.ConcurrencySettings;
import io.github.llmresilience.overload.ConcurrencySettings.Algorithm;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A failure domain's limit: places are taken under it and given back once; it grows while
 * answers come back on time with the limit in use, and falls on drops (overload and
 * availability failures, slow answers). Halving is told once, not every step down.
 */
class DomainLimitTests {

	private static final long SECOND = 1_000_000_000L;

	private final List<Integer> halvings = new ArrayList<>();

	private DomainLimit limit(int initial) {
		// A tenth off each drop, to see the steps between halvings.
		return new DomainLimit("openai/gpt-4o/us", new ConcurrencySettings(true, Algorithm.AIMD, initial, 1, 50, 0.9),
				this.halvings::add);
	}

	@Test
	void placesAreTakenUpToTheLimitAndGivenBackOnce() {
		DomainLimit limit = limit(2);
		assertThat(limit.tryAcquire()).isTrue();
		assertThat(limit.tryAcquire()).isTrue();
		assertThat(limit.tryAcquire()).isFalse();
		assertThat(limit.inFlight()).isEqualTo(2);
		limit.release();
		assertThat(limit.inFlight()).isEqualTo(1);
		assertThat(limit.tryAcquire()).isTrue();
	}

	@Test
	void otherTrafficLeavesATenthOfTheLimitToInteractiveCalls() {
		DomainLimit limit = limit(20);
		for (int i = 0; i < 18; i++) {
			assertThat(limit.tryAcquire(false)).isTrue();
		}
		assertThat(limit.tryAcquire(false)).isFalse();
		assertThat(limit.tryAcquire(true)).isTrue();
		assertThat(limit.tryAcquire(true)).isTrue();
		assertThat(limit.tryAcquire(true)).isFalse();
	}

	@Test
	void theLimitGrowsWhileAnswersComeOnTimeWithTheLimitInUse() {
		DomainLimit limit = limit(4);
		for (int i = 0; i < 6; i++) {
			while (limit.tryAcquire()) {
				// fill it: AIMD grows only a limit that is in use
			}
			limit.settle(0, SECOND / 2, false);
		}
		assertThat(limit.limit()).isEqualTo(10);
		assertThat(this.halvings).isEmpty();
	}

	@Test
	void dropsCutTheLimitAndAHalvingIsToldOnceUntilTheLimitIsBack() {
		DomainLimit limit = limit(40);
		drops(limit, 6);
		// A tenth off each time, rounded down: 36, 32, 28, 25, 22, 19, half of 40.
		assertThat(limit.limit()).isEqualTo(19);
		assertThat(this.halvings).containsExactly(19);
		// AIMD's sawtooth below it is not told again.
		drops(limit, 5);
		assertThat(limit.limit()).isEqualTo(9);
		assertThat(this.halvings).containsExactly(19);
		// Back at 40, a halving is news again.
		while (limit.limit() < 40) {
			onTime(limit);
		}
		drops(limit, 6);
		assertThat(this.halvings).containsExactly(19, 19);
		assertThat(limit.inFlight()).isZero();
	}

	/** Answers on time with the limit full: AIMD adds one. */
	private static void onTime(DomainLimit limit) {
		while (limit.tryAcquire()) {
			// fill it
		}
		limit.settle(0, SECOND / 2, false);
		while (limit.inFlight() > 0) {
			limit.release();
		}
	}

	private static void drops(DomainLimit limit, int n) {
		for (int i = 0; i < n; i++) {
			limit.tryAcquire();
			limit.settle(0, SECOND, true);
		}
	}

	@Test
	void byDefaultADropHalvesTheLimit() {
		DomainLimit limit = new DomainLimit("d", ConcurrencySettings.defaults().withEnabled(true), this.halvings::add);
		// The limit starts out of the way, at its maximum, and falls fast.
		assertThat(limit.limit()).isEqualTo(200);
		drops(limit, 1);
		assertThat(limit.limit()).isEqualTo(100);
		drops(limit, 4);
		assertThat(limit.limit()).isEqualTo(6);
		assertThat(this.halvings).containsExactly(100);
	}

	@Test
	void forgettingStartsOverFromTheInitialLimitAndKeepsThePlacesInFlight() {
		DomainLimit limit = limit(40);
		drops(limit, 6);
		limit.tryAcquire();
		limit.forget();
		assertThat(limit.limit()).isEqualTo(40);
		assertThat(limit.inFlight()).isEqualTo(1);
		// Halved again from 40, as if for the first time.
		drops(limit, 6);
		assertThat(this.halvings).containsExactly(19, 19);
	}

	@Test
	void aDropWithoutALatencySampleStillCutsAndAReleaseLearnsNothing() {
		DomainLimit limit = limit(10);
		limit.tryAcquire();
		limit.settle(0, -1, true);
		assertThat(limit.limit()).isEqualTo(9);
		limit.tryAcquire();
		limit.release();
		limit.tryAcquire();
		limit.settle(0, -1, false);
		assertThat(limit.limit()).isEqualTo(9);
		assertThat(limit.inFlight()).isZero();
	}

	@Test
	void theRetryHintIsALatencySharedByTheCallsInFlightAndNeverBelowTenMilliseconds() {
		DomainLimit limit = limit(2);
		assertThat(limit.retryNanos()).isEqualTo(10_000_000L);
		limit.tryAcquire();
		limit.settle(0, 2 * SECOND, false);
		limit.tryAcquire();
		limit.tryAcquire();
		assertThat(limit.retryNanos()).isEqualTo(SECOND);
	}

	@Test
	void everyAlgorithmIsBuiltWithinItsBounds() {
		for (Algorithm algorithm : Algorithm.values()) {
			DomainLimit limit = new DomainLimit("d", new ConcurrencySettings(true, algorithm, 5, 1, 8), (l) -> {
			});
			assertThat(limit.limit()).as(algorithm.id()).isEqualTo(5);
			for (int i = 0; i < 50; i++) {
				limit.tryAcquire();
				limit.settle(i * SECOND, SECOND, true);
			}
			assertThat(limit.limit()).as(algorithm.id()).isBetween(1, 8);
		}
	}

}
