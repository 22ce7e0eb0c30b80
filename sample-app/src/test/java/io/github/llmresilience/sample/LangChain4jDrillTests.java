package io.github.llmresilience.sample;

import java.time.Duration;

import dev.langchain4j.model.chat.ChatModel;
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
import org.springframework.test.util.TestSocketUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The drills with {@code --client=langchain4j}: the jobs call the chain's LangChain4j
 * {@code ChatModel} over LangChain4j's own OpenAI and Anthropic chat models, which talk
 * to the simulator. Compressed as in {@link OutageDrillTests}; the counts are the same as
 * with the WebClient and Spring AI clients.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE,
		properties = { "sample.simulator.latency-scale=0.05", "llm.resilience.breaker.open-duration=3s" })
@ActiveProfiles("drill")
class LangChain4jDrillTests {

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
	 * The first call through a LangChain4j model loads its classes, which on a busy
	 * machine can outlast a compressed 2-second outage: each chain's model answers once
	 * before the drill.
	 */
	@BeforeEach
	void warmAndCleanSlate() {
		for (String chain : new String[] { "primary-only", "chat" }) {
			assertThat(this.beans.getBean(chain + "Lc4jChatModel", ChatModel.class).chat("Warm up")).isNotBlank();
		}
		ResilienceState.reset(this.resilience);
	}

	@Test
	void throughLangChain4jTheOutageDrillPrintsTheSameLinesAndCounts() {
		DrillReport report = this.drill.run(DrillPlan.outage(true)
			.withIncident(Duration.ofSeconds(2))
			.withAttemptDelay(Duration.ofMillis(100))
			.withLimit(Duration.ofSeconds(60)), DrillClient.LANGCHAIN4J);

		assertThat(report.callsDuringIncident()).isBetween(5L, 8L);
		assertThat(report.statusesDuringIncident()).containsOnlyKeys(503);
		assertThat(report.succeeded()).isEqualTo(30);
		assertThat(report.lines()).first().asString().contains("client LangChain4j (primary-onlyLc4jChatModel)");
		assertThat(report.lines()).anySatisfy((line) -> assertThat(line)
			.startsWith("Calls that reached the provider during the outage: " + report.callsDuringIncident()));
		assertThat(report.lines()).last()
			.asString()
			.startsWith("Jobs at the end (")
			.endsWith("succeeded 30, dead_letter 0");
	}

	@Test
	void throughLangChain4jAnAccountOutOfQuotaGetsOneRequestPerWorkerInFlightAndSecondaryServes() {
		DrillReport report = this.drill.run(DrillPlan.quota(true)
			.withIncident(Duration.ofSeconds(10))
			.withAttemptDelay(Duration.ofMillis(100))
			.withLimit(Duration.ofSeconds(60)), DrillClient.LANGCHAIN4J);

		// The four workers' first calls were on their way before the first answer parked
		// the account; none came after it.
		assertThat(report.callsDuringIncident()).isBetween(1L, 4L);
		assertThat(report.statusesDuringIncident()).containsOnlyKeys(429);
		assertThat(report.succeeded()).isEqualTo(30);
		assertThat(report.servedBy()).containsOnlyKeys("secondary");
	}

}
