package io.github.llmresilience.sample;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.change.StateChangeListener;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.sample.simulator.Mode;
import io.github.llmresilience.state.TargetState.BreakerState;
import io.github.llmresilience.test.ManualTime;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.context.annotation.Bean;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scenario end to end: a model version rolls forward and its answers run four
 * times longer (the simulator's {@code longer} mode, from a point in time on). Every
 * answer still succeeds; the spend trigger opens the primary's breaker within one window,
 * and the answers API serves every question meanwhile, from the secondary once it opened.
 *
 * <p>
 * Priced as gpt-4o (2.50 in, 10.00 out per million), a question of 14 tokens and an
 * answer of 14 cost 175 millionths; the same answer four times over, 595: 3.4 times the
 * median, past {@code open-multiple} 3.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.simulator.latency-scale=0.02", "llm.resilience.spend.enabled=true",
				"llm.resilience.spend.window=1m", "llm.resilience.spend.min-calls=5",
				"llm.resilience.targets.primary.price.input=2.50",
				"llm.resilience.targets.primary.price.output=10.00" })
@AutoConfigureWebTestClient
class SpendTriggerTests {

	private static final int SIMULATOR_PORT = TestPorts.free();

	private static final Duration WINDOW = Duration.ofMinutes(1);

	/** A question every 5 s: 12 a window. */
	private static final Duration PACE = Duration.ofSeconds(5);

	/**
	 * The application's time (llm-resilience, the simulator, the job queue), which the
	 * tests move.
	 */
	private static final ManualTime time = new ManualTime();

	@DynamicPropertySource
	static void simulatorPort(DynamicPropertyRegistry registry) {
		registry.add("sample.simulator.port", () -> SIMULATOR_PORT);
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class Time {

		// Only a Clock: a ManualTime bean is a Reactor Scheduler too, which the simulator
		// would run its latencies on.
		@Bean
		Clock testClock() {
			return time.clock();
		}

		@Bean
		Events events() {
			return new Events();
		}

	}

	static class Events implements StateChangeListener {

		final List<StateChange> changes = new CopyOnWriteArrayList<>();

		@Override
		public void onStateChange(StateChange change) {
			this.changes.add(change);
		}

		long count(StateChange.Kind kind) {
			return this.changes.stream().filter((change) -> change.kind() == kind).count();
		}

	}

	@Autowired
	private WebTestClient http;

	@Autowired
	private LlmResilience resilience;

	@Autowired
	private Events events;

	private final SimulatorAdmin simulator = new SimulatorAdmin(SIMULATOR_PORT);

	@Test
	void answersFourTimesLongerOpenThePrimaryOnSpendWhileEveryQuestionIsAnswered() {
		this.http = this.http.mutate().responseTimeout(Duration.ofSeconds(30)).build();
		this.simulator.reset();
		// Four windows of ordinary answers: three remembered, the fourth under way.
		int asked = 0;
		int answered = 0;
		for (int i = 0; i < 4 * 12 + 6; i++) {
			answered += ask("servedBy", "primary");
			asked++;
		}
		this.simulator.mode("primary", "{\"mode\": \"longer\"}");
		Instant changedAt = time.instant();
		Duration tookToOpen = null;
		while (tookToOpen == null && asked < 200) {
			Instant at = time.instant();
			answered += ask("servedBy", "primary");
			asked++;
			if (status() != BreakerState.Status.CLOSED) {
				tookToOpen = Duration.between(changedAt, at);
			}
		}
		for (int i = 0; i < 5; i++) {
			answered += ask("servedBy", "secondary");
			asked++;
		}

		assertThat(tookToOpen).as("the primary's breaker opened").isNotNull();
		System.out.printf("Spend trigger: primary opened on spend %d s after its answers ran longer; answered %d of %d"
				+ " questions%n", tookToOpen.toSeconds(), answered, asked);
		assertThat(answered).isEqualTo(asked);
		assertThat(status()).isEqualTo(BreakerState.Status.OPEN);
		assertThat(this.resilience.state().target("primary").breaker().reason()).isEqualTo("spend");
		assertThat(tookToOpen).isLessThanOrEqualTo(WINDOW);
		assertThat(this.simulator.stats("primary").mode(Mode.LONGER).statuses()).containsOnlyKeys(200);
		assertThat(this.events.count(StateChange.Kind.SPEND_ALERT)).isOne();
		assertThat(this.events.count(StateChange.Kind.SPEND_TRIPPED)).isOne();
		this.http.get()
			.uri("/actuator/health")
			.exchange()
			.expectBody()
			.jsonPath("$.components.llmResilience.details.targets.primary.breaker.reason")
			.isEqualTo("spend");
	}

	/** Ask once, then let {@link #PACE} pass; 1 when answered by the expected target. */
	private int ask(String field, String servedBy) {
		byte[] body = this.http.post()
			.uri("/v1/answers")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue(Map.of("question", "What is a circuit breaker?"))
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$." + field)
			.isEqualTo(servedBy)
			.returnResult()
			.getResponseBody();
		time.advance(PACE);
		return (body != null) ? 1 : 0;
	}

	private BreakerState.Status status() {
		return this.resilience.state().target("primary").breaker().status();
	}

}
