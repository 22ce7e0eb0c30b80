package io.github.llmresilience.pool;

import java.time.Duration;

import io.github.llmresilience.settings.InvalidSettingException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The arithmetic of leasing, figure by figure (docs/pools.md, "Fleet mode: leases").
 */
class LeaseSizingTests {

	private static final long FIVE_SECONDS = Duration.ofSeconds(5).toNanos();

	@Test
	void aLeaseCoversThePeriodsExpectedDemandAndAQuarterMore() {
		// 4 requests a second over 5 s: 20, and a quarter more: 25.
		assertThat(LeaseSizing.ask(4, 0, FIVE_SECONDS, 6000, 1)).isEqualTo(25);
		// 0.3 a second: 1.5 expected, 1.875 with headroom, rounded up: 2.
		assertThat(LeaseSizing.ask(0.3, 0, FIVE_SECONDS, 6000, 1)).isEqualTo(2);
	}

	@Test
	void callsRefusedSinceTheLastLookAreAskedForOnTop() {
		assertThat(LeaseSizing.ask(4, 3, FIVE_SECONDS, 6000, 1)).isEqualTo(28);
		// Tokens: each refused call asks for what it would take.
		assertThat(LeaseSizing.ask(0, 2, FIVE_SECONDS, 1_000_000, 500)).isEqualTo(1000);
	}

	@Test
	void anIdlePodAsksForNothing() {
		// Less than half a call expected over the period is none.
		assertThat(LeaseSizing.ask(0.09, 0, FIVE_SECONDS, 6000, 1)).isZero();
		assertThat(LeaseSizing.ask(0, 0, FIVE_SECONDS, 6000, 1)).isZero();
		// ...but a waiting call is asked for.
		assertThat(LeaseSizing.ask(0, 1, FIVE_SECONDS, 6000, 1)).isEqualTo(1);
	}

	@Test
	void aDimensionWhoseCapacityIsNotKnownIsNotLeased() {
		assertThat(LeaseSizing.ask(100, 5, FIVE_SECONDS, 0, 1)).isZero();
	}

	@Test
	void aLeaseHoldsAtMostTwoPeriodsOfTheScopesRefill() {
		// 600 a minute, 5 s: 50 a period, 100 at most.
		assertThat(LeaseSizing.most(FIVE_SECONDS, 600)).isEqualTo(100);
		assertThat(LeaseSizing.ask(1000, 0, FIVE_SECONDS, 600, 1)).isEqualTo(100);
		// Never less than one, never more than the capacity.
		assertThat(LeaseSizing.most(Duration.ofMillis(100).toNanos(), 10)).isEqualTo(1);
		assertThat(LeaseSizing.most(Duration.ofSeconds(60).toNanos(), 10)).isEqualTo(10);
	}

	@Test
	void aLeaseRunsLowBelowAQuarterOrTwoTicksOfDemand() {
		long tick = Duration.ofMillis(500).toNanos();
		assertThat(LeaseSizing.low(24, 100, 0, tick)).isTrue();
		assertThat(LeaseSizing.low(25, 100, 0, tick)).isFalse();
		// 30 a second: two ticks of half a second need 30.
		assertThat(LeaseSizing.low(29, 100, 30, tick)).isTrue();
		assertThat(LeaseSizing.low(30, 100, 30, tick)).isFalse();
		assertThat(LeaseSizing.low(0, 0, 0, tick)).isTrue();
	}

	@Test
	void theDemandRateHalvesItsWeightEveryWindow() {
		long second = Duration.ofSeconds(1).toNanos();
		assertThat(LeaseSizing.rate(0, 10, second)).isEqualTo(5);
		assertThat(LeaseSizing.rate(5, 10, second)).isEqualTo(7.5);
		// Idle windows decay it: below the idle mark after a few.
		double rate = 10;
		for (int i = 0; i < 8; i++) {
			rate = LeaseSizing.rate(rate, 0, second);
		}
		assertThat(rate).isLessThan(0.05);
		assertThat(LeaseSizing.ask(rate, 0, FIVE_SECONDS, 6000, 1)).isZero();
	}

	@Test
	void aPodWithoutALeaseWaitsAtLeastTheFleetsRefill() {
		// 600 a minute refill one every 100 ms.
		assertThat(LeaseSizing.refillNanos(1, 600)).isEqualTo(Duration.ofMillis(100).toNanos());
		assertThat(LeaseSizing.refillNanos(0, 600)).isZero();
	}

	@Test
	void settingsRejectAPeriodOutOfRangeAndATimeoutNotBelowIt() {
		assertThatExceptionOfType(InvalidSettingException.class)
			.isThrownBy(() -> new LeaseSettings(true, Duration.ofMillis(99), Duration.ofMillis(10)))
			.satisfies((ex) -> assertThat(ex.setting()).isEqualTo("period"));
		assertThatExceptionOfType(InvalidSettingException.class)
			.isThrownBy(() -> new LeaseSettings(true, Duration.ofSeconds(61), Duration.ofSeconds(1)))
			.satisfies((ex) -> assertThat(ex.setting()).isEqualTo("period"));
		assertThatExceptionOfType(InvalidSettingException.class)
			.isThrownBy(() -> new LeaseSettings(true, Duration.ofSeconds(1), Duration.ofSeconds(1)))
			.withMessage("exchangeTimeout must be less than period (PT1S), was PT1S");
		assertThatExceptionOfType(InvalidSettingException.class)
			.isThrownBy(() -> new LeaseSettings(true, Duration.ofSeconds(1), Duration.ofMillis(9)))
			.satisfies((ex) -> assertThat(ex.setting()).isEqualTo("exchangeTimeout"));
	}

}
