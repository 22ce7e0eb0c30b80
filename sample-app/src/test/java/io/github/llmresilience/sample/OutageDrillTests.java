package io.github.llmresilience.sample;

import java.time.Duration;

import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.sample.drill.Drill;
import io.github.llmresilience.sample.drill.DrillPlan;
import io.github.llmresilience.sample.drill.DrillReport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The course's outage drill, compressed: the drill profile (breaker opening after 5
 * calls, one request per job attempt), answers twenty times faster, a 2-second outage and
 * a breaker open for 3 seconds instead of 20 and 30. The counts are the course's: with
 * the breaker at most 8 calls reach the provider and all 30 jobs succeed; without it, 30
 * jobs times 5 attempts reach it and all 30 become dead letters. Client-side throttling
 * is off, as {@code --breaker=off} has it: the baseline is a worker without protection,
 * and the breaker (5 calls) acts before throttling could (20 requests).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE,
		properties = { "sample.simulator.latency-scale=0.05", "llm.resilience.breaker.open-duration=3s",
				"llm.resilience.client-throttling.enabled=false" })
@ActiveProfiles("drill")
class OutageDrillTests {

	private static final int SIMULATOR_PORT = TestPorts.free();

	@DynamicPropertySource
	static void simulatorPort(DynamicPropertyRegistry registry) {
		registry.add("sample.simulator.port", () -> SIMULATOR_PORT);
	}

	@Autowired
	private Drill drill;

	@Autowired
	private LlmResilience resilience;

	@BeforeEach
	void cleanSlate() {
		ResilienceState.reset(this.resilience);
	}

	@Test
	void withTheBreakerAtMostEightCallsReachTheProviderAndEveryJobSucceeds() {
		// The outage is shorter than the breaker's open time, so its one trial comes
		// after.
		DrillReport report = this.drill.run(DrillPlan.outage(true)
			.withIncident(Duration.ofSeconds(2))
			.withAttemptDelay(Duration.ofMillis(100))
			.withLimit(Duration.ofSeconds(60)));

		assertThat(report.callsDuringIncident()).isBetween(5L, 8L);
		assertThat(report.statusesDuringIncident()).containsOnlyKeys(503);
		assertThat(report.succeeded()).isEqualTo(30);
		assertThat(report.deadLetters()).isZero();
	}

	@Test
	void withoutTheBreakerEveryAttemptReachesTheProviderAndEveryJobIsADeadLetter() {
		// Long enough for 5 attempts of every job to fall inside the outage on a slow
		// machine.
		DrillReport report = this.drill.run(DrillPlan.outage(false)
			.withIncident(Duration.ofSeconds(20))
			.withAttemptDelay(Duration.ofMillis(50))
			.withLimit(Duration.ofSeconds(60)));

		assertThat(report.callsDuringIncident()).isEqualTo(30 * 5);
		assertThat(report.deadLetters()).isEqualTo(30);
		assertThat(report.succeeded()).isZero();
	}

	@Test
	void withFailoverSecondaryServesEveryJobDuringTheOutage() {
		DrillReport report = this.drill.run(DrillPlan.outageFailover(true)
			.withIncident(Duration.ofSeconds(20))
			.withAttemptDelay(Duration.ofMillis(100))
			.withLimit(Duration.ofSeconds(60)));

		assertThat(report.callsDuringIncident()).isBetween(5L, 8L);
		assertThat(report.succeeded()).isEqualTo(30);
		assertThat(report.servedDuringIncident()).containsEntry("secondary", 30L);
	}

}
