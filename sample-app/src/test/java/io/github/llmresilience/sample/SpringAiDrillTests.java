package io.github.llmresilience.sample;

import java.time.Duration;

import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.sample.drill.Drill;
import io.github.llmresilience.sample.drill.DrillClient;
import io.github.llmresilience.sample.drill.DrillPlan;
import io.github.llmresilience.sample.drill.DrillReport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.model.ChatModel;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.util.TestSocketUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The drills with {@code --client=spring-ai}: the jobs call the chain's ChatModel over
 * Spring AI's own OpenAI and Anthropic chat models, which talk to the simulator.
 * Compressed as in {@link OutageDrillTests}; the counts are the same as with the
 * WebClient client.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE,
		properties = { "sample.simulator.latency-scale=0.05", "llm.resilience.breaker.open-duration=3s" })
@ActiveProfiles("drill")
class SpringAiDrillTests {

	private static final int SIMULATOR_PORT = TestSocketUtils.findAvailableTcpPort();

	@DynamicPropertySource
	static void simulatorPort(DynamicPropertyRegistry registry) {
		registry.add("sample.simulator.port", () -> SIMULATOR_PORT);
	}

	@Autowired
	private Drill drill;

	@Autowired
	private LlmResilience resilience;

	@Autowired
	private BeanFactory beans;

	/**
	 * The first call through an SDK client loads its classes, which on a busy machine can
	 * outlast a compressed 2-second outage: each chain's ChatModel answers once before
	 * the drill.
	 */
	@BeforeEach
	void warmAndCleanSlate() {
		for (String chain : new String[] { "primary-only", "chat" }) {
			assertThat(this.beans.getBean(chain + "ChatModel", ChatModel.class).call("Warm up")).isNotBlank();
		}
		ResilienceState.reset(this.resilience);
	}

	@Test
	void throughSpringAiTheOutageDrillPrintsTheSameLinesAndCounts() {
		DrillReport report = this.drill.run(DrillPlan.outage(true)
			.withIncident(Duration.ofSeconds(2))
			.withAttemptDelay(Duration.ofMillis(100))
			.withLimit(Duration.ofSeconds(60)), DrillClient.SPRING_AI);

		assertThat(report.callsDuringIncident()).isBetween(5L, 8L);
		assertThat(report.statusesDuringIncident()).containsOnlyKeys(503);
		assertThat(report.succeeded()).isEqualTo(30);
		assertThat(report.lines()).anySatisfy((line) -> assertThat(line)
			.startsWith("Calls that reached the provider during the outage: " + report.callsDuringIncident()));
		assertThat(report.lines()).last()
			.asString()
			.startsWith("Jobs at the end (")
			.endsWith("succeeded 30, dead_letter 0");
	}

	@Test
	void throughSpringAiAnAccountOutOfQuotaGetsOneRequestPerWorkerInFlightAndSecondaryServes() {
		DrillReport report = this.drill.run(DrillPlan.quota(true)
			.withIncident(Duration.ofSeconds(10))
			.withAttemptDelay(Duration.ofMillis(100))
			.withLimit(Duration.ofSeconds(60)), DrillClient.SPRING_AI);

		// The four workers' first calls were on their way before the first answer parked
		// the account; none came after it.
		assertThat(report.callsDuringIncident()).isBetween(1L, 4L);
		assertThat(report.statusesDuringIncident()).containsOnlyKeys(429);
		assertThat(report.succeeded()).isEqualTo(30);
		assertThat(report.servedBy()).containsOnlyKeys("secondary");
	}

}
