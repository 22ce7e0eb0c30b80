package io.github.llmresilience.sample;

import java.time.Duration;

import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.sample.drill.Drill;
import io.github.llmresilience.sample.drill.DrillClient;
import io.github.llmresilience.sample.drill.DrillPlan;
import io.github.llmresilience.sample.drill.DrillReport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The drills through a chain's failover model of a model client
 * ({@code --client=spring-ai}, {@code --client=langchain4j}): the jobs call the chain's
 * model over the client's own OpenAI and Anthropic models, which talk to the simulator.
 * Compressed as in {@link OutageDrillTests}; the counts are the same as with the
 * WebClient client. Each client's class says which client and how its model is warmed up;
 * the drills and what they assert are the same for both.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE,
		properties = { "sample.simulator.latency-scale=0.05", "llm.resilience.breaker.open-duration=3s" })
@ActiveProfiles("drill")
abstract class ModelClientDrillTests {

	private static final int SIMULATOR_PORT = TestPorts.free();

	@DynamicPropertySource
	static void simulatorPort(DynamicPropertyRegistry registry) {
		registry.add("sample.simulator.port", () -> SIMULATOR_PORT);
	}

	private final DrillClient client;

	/** How the drill's first line names the client. */
	private final String label;

	/** The failover model bean's suffix after the chain's name. */
	private final String beanSuffix;

	@Autowired
	private Drill drill;

	@Autowired
	private LlmResilience resilience;

	@Autowired
	private BeanFactory beans;

	ModelClientDrillTests(DrillClient client, String label, String beanSuffix) {
		this.client = client;
		this.label = label;
		this.beanSuffix = beanSuffix;
	}

	/** One call through the chain's failover model of that name: its answer. */
	abstract String warmUp(BeanFactory beans, String model);

	/**
	 * The first call through a client's model loads its classes, which on a busy machine
	 * can outlast a compressed 2-second outage: each chain's model answers once before
	 * the drill, on a clean slate.
	 */
	@BeforeEach
	void warmAndCleanSlate() {
		// Both clients' drills share one context: the last drill may have left its
		// incident on in the simulator (each drill resets it only when it starts) and
		// the account parked.
		new SimulatorAdmin(SIMULATOR_PORT).reset();
		ResilienceState.reset(this.resilience);
		for (String chain : new String[] { "primary-only", "chat" }) {
			assertThat(warmUp(this.beans, chain + this.beanSuffix)).isNotBlank();
		}
		ResilienceState.reset(this.resilience);
	}

	@Test
	void theOutageDrillPrintsTheSameLinesAndCounts() {
		DrillReport report = this.drill.run(DrillPlan.outage(true)
			.withIncident(Duration.ofSeconds(2))
			.withAttemptDelay(Duration.ofMillis(100))
			.withLimit(Duration.ofSeconds(60)), this.client);

		assertThat(report.callsDuringIncident()).isBetween(5L, 8L);
		assertThat(report.statusesDuringIncident()).containsOnlyKeys(503);
		assertThat(report.succeeded()).isEqualTo(30);
		assertThat(report.lines()).first()
			.asString()
			.contains("client " + this.label + " (primary-only" + this.beanSuffix + ")");
		assertThat(report.lines()).anySatisfy((line) -> assertThat(line)
			.startsWith("Calls that reached the provider during the outage: " + report.callsDuringIncident()));
		assertThat(report.lines()).last()
			.asString()
			.startsWith("Jobs at the end (")
			.endsWith("succeeded 30, dead_letter 0");
	}

	@Test
	void anAccountOutOfQuotaGetsOneRequestPerWorkerInFlightAndSecondaryServes() {
		DrillReport report = this.drill.run(DrillPlan.quota(true)
			.withIncident(Duration.ofSeconds(10))
			.withAttemptDelay(Duration.ofMillis(100))
			.withLimit(Duration.ofSeconds(60)), this.client);

		// The four workers' first calls were on their way before the first answer parked
		// the account; none came after it.
		assertThat(report.callsDuringIncident()).isBetween(1L, 4L);
		assertThat(report.statusesDuringIncident()).containsOnlyKeys(429);
		assertThat(report.succeeded()).isEqualTo(30);
		assertThat(report.servedBy()).containsOnlyKeys("secondary");
	}

}
