package io.github.llmresilience.sample;

import java.time.Duration;
import java.util.List;

import io.github.llmresilience.sample.drill.PoolsDrill;
import io.github.llmresilience.sample.drill.PoolsDrillPlan;
import io.github.llmresilience.sample.drill.PoolsDrillReport;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The pools drill, ten times faster ({@code --time-scale=0.1}: 6 s of interactive calls,
 * one every 0.2 s, beside a background job of 120 calls, primary limited to 60 requests a
 * scaled minute), with pools on and off, against the simulator over real HTTP.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE, properties = "sample.simulator.latency-scale=0.05")
@ActiveProfiles("drill")
class PoolsDrillTests {

	private static final int SIMULATOR_PORT = TestPorts.free();

	@DynamicPropertySource
	static void simulatorPort(DynamicPropertyRegistry registry) {
		registry.add("sample.simulator.port", () -> SIMULATOR_PORT);
	}

	/**
	 * The least share of what the provider allowed that the drill uses with pools on, at
	 * ten times the rate on a busy machine (a real-time run used 95 %, docs/pools.md).
	 */
	private static final double QUOTA_USED = 85;

	@Autowired
	private PoolsDrill drill;

	@Test
	void withPoolsOnInteractiveCallsAreNeverRateLimitedAndTheJobGetsItsShareAndTheIdleCapacity() {
		PoolsDrillPlan plan = PoolsDrillPlan.of(true, 60).scaled(0.1);
		PoolsDrillReport report = this.drill.run(plan);
		List<String> lines = report.lines();
		lines.forEach(System.out::println);

		assertThat(lines).anyMatch((line) -> line.matches("Interactive calls: served \\d+ of \\d+, rate limited \\d+"))
			.anyMatch((line) -> line.matches("Background calls: served \\d+ of \\d+ in \\d+(\\.\\d+)? s"))
			.contains("Capacity learned from the provider's headers: " + plan.simulatorLimit() + " requests a minute");
		assertThat(report.interactiveRateLimited()).isZero();
		assertThat(report.interactiveFailed()).isZero();
		assertThat(report.interactiveServed()).isEqualTo(plan.interactiveCalls());
		// Nothing the provider allowed was left idle: the job took what interactive did
		// not ask for, and the provider refused nothing.
		assertThat(lines).anyMatch((line) -> line
			.matches("Quota used: \\d+(\\.\\d+)? % of what the provider allowed \\(\\d+ of \\d+ requests\\)"));
		assertThat(report.refused()).isZero();
		assertThat(report.quotaUsed()).isGreaterThanOrEqualTo(QUOTA_USED);
	}

	@Test
	void withPoolsOffTheJobTakesTheQuotaTheProviderRefusesRequestsAndInteractiveCallsWaitBehindIt() {
		PoolsDrillPlan plan = PoolsDrillPlan.of(false, 60).scaled(0.1);
		PoolsDrillReport report = this.drill.run(plan);
		report.lines().forEach(System.out::println);

		assertThat(report.lines())
			.anyMatch((line) -> line.matches("Interactive calls: served \\d+ of \\d+, rate limited \\d+"));
		assertThat(report.interactiveServed() + report.interactiveRateLimited() + report.interactiveFailed())
			.isEqualTo(plan.interactiveCalls());
		assertThat(report.refused()).isPositive();
		// Waiting at the job's gate, not for the next refill (with pools on: one refill
		// of 600 a minute and an answer, a fraction of a second).
		assertThat(report.interactiveLongestWait()).isGreaterThan(Duration.ofSeconds(1));
	}

}
