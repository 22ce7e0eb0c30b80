package io.github.llmresilience.sample.drill;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The brownout drill's open load: the rate grows linearly over the ramp and holds at the
 * peak.
 */
class BrownoutDrillPlanTests {

	private final BrownoutDrillPlan plan = BrownoutDrillPlan.of(8, Duration.ofSeconds(20));

	@Test
	void theCallsAreTheRatesIntegral() {
		List<Duration> arrivals = this.plan.arrivals(10);

		// 10 a second at the peak: 100 calls over the 20 s ramp, 150 over the 15 s hold.
		assertThat(arrivals).hasSize(250).isSorted();
		// The first call when the integral 10 t^2 / 40 reaches 1: t = 2 s.
		assertThat(arrivals.get(0).toNanos() / 1e9).isCloseTo(2, within(1e-6));
		assertThat(arrivals.get(99).toNanos() / 1e9).isCloseTo(20, within(1e-6));
		// During the hold, one every 100 ms.
		assertThat(arrivals.get(200).minus(arrivals.get(199))).isEqualTo(Duration.ofMillis(100));
		assertThat(arrivals.get(249)).isLessThanOrEqualTo(this.plan.ramp().plus(this.plan.hold()));
	}

	@Test
	void thePeakIsThreeTimesPrimarysCapacityAndSecondaryHasTwice() {
		assertThat(this.plan.peakInFlight()).isEqualTo(24);
		assertThat(this.plan.secondaryCapacity()).isEqualTo(16);
		BrownoutDrillPlan scaled = this.plan.scaled(0.1);
		assertThat(scaled.ramp()).isEqualTo(Duration.ofSeconds(2));
		assertThat(scaled.hold()).isEqualTo(Duration.ofMillis(1500));
		assertThat(scaled.deadline()).isEqualTo(Duration.ofSeconds(2));
	}

}
