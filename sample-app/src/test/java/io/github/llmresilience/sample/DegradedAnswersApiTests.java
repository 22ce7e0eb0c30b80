package io.github.llmresilience.sample;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.test.ManualTime;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.context.annotation.Bean;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The answers API in degraded mode ({@code sample.answers.degraded=true}) with every
 * simulated target down: a question asked before gets its last answer again, any other an
 * honest message, both served by {@code degraded}; a refusal is still the caller's 422,
 * and a served answer is not degraded.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.simulator.latency-scale=0.02", "llm.resilience.retry.backoff-base=10ms",
				"sample.answers.degraded=true" })
@AutoConfigureWebTestClient
class DegradedAnswersApiTests {

	private static final int SIMULATOR_PORT = TestPorts.free();

	/**
	 * The application's time (llm-resilience, the simulator, the job queue), which the
	 * tests move.
	 */
	private static final ManualTime time = new ManualTime();

	private static final Duration PATIENCE = Duration.ofSeconds(60);

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

	}

	@Autowired
	private WebTestClient http;

	@Autowired
	private LlmResilience resilience;

	private final SimulatorAdmin simulator = new SimulatorAdmin(SIMULATOR_PORT);

	@BeforeEach
	void cleanSlate() {
		this.http = this.http.mutate().responseTimeout(PATIENCE).build();
		this.simulator.reset();
		ResilienceState.reset(this.resilience);
	}

	private void everyTargetDown() {
		this.simulator.mode("primary", "{\"mode\": \"outage\"}");
		this.simulator.mode("secondary", "{\"mode\": \"outage\"}");
	}

	@Test
	void aQuestionAskedBeforeGetsItsLastAnswerAgainServedByDegraded() {
		Answer fresh = answer("What is a circuit breaker?");
		assertThat(fresh.servedBy()).isEqualTo("primary");
		everyTargetDown();

		Answer degraded = answer("what is a circuit breaker? ");

		assertThat(degraded.servedBy()).isEqualTo("degraded");
		assertThat(degraded.answer()).isEqualTo(fresh.answer());
		assertThat(this.simulator.stats("primary").statuses()).containsKey(503);
		assertThat(this.simulator.stats("secondary").statuses()).containsKey(503);
	}

	@Test
	void aNewQuestionGetsAnHonestMessageServedByDegraded() {
		everyTargetDown();

		Answer degraded = answer("Is anyone there?");

		assertThat(degraded.servedBy()).isEqualTo("degraded");
		assertThat(degraded.answer()).startsWith("No AI provider can answer right now").contains("ask again in");
	}

	@Test
	void onceTheBreakersAreOpenTheDegradedAnswerNeedsNoRequest() {
		everyTargetDown();
		this.resilience.operator().forceOpen("primary");
		this.resilience.operator().forceOpen("secondary");

		assertThat(answer("Anyone?").servedBy()).isEqualTo("degraded");
		assertThat(this.simulator.totalRequests()).isZero();
	}

	@Test
	void aStreamNoTargetCanStartIsTheDegradedAnswerAsOneTokenThenDone() {
		everyTargetDown();

		List<ServerSentEvent<String>> events = this.http.get()
			.uri((uri) -> uri.path("/v1/answers/stream").queryParam("question", "Hello there").build())
			.accept(MediaType.TEXT_EVENT_STREAM)
			.exchange()
			.expectStatus()
			.isOk()
			.returnResult(new ParameterizedTypeReference<ServerSentEvent<String>>() {
			})
			.getResponseBody()
			.collectList()
			.block(PATIENCE);

		assertThat(events).extracting(ServerSentEvent::event).containsExactly("token", "done");
		assertThat(events.get(0).data()).contains("No AI provider can answer right now");
		assertThat(events.get(1).data()).contains("\"servedBy\":\"degraded\"");
	}

	@Test
	void aRefusalIsStillTheCallers422AndNotDegraded() {
		this.simulator.mode("primary", "{\"mode\": \"content-filter\"}");

		ask("Something the provider refuses").expectStatus()
			.isEqualTo(422)
			.expectBody()
			.jsonPath("$.error.code")
			.isEqualTo("content_filtered");
	}

	private Answer answer(String question) {
		return ask(question).expectStatus().isOk().expectBody(Answer.class).returnResult().getResponseBody();
	}

	private WebTestClient.ResponseSpec ask(String question) {
		return this.http.post()
			.uri("/v1/answers")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue(Map.of("question", question))
			.exchange();
	}

	/**
	 * The answers API's body.
	 *
	 * @param answer the text
	 * @param servedBy the target that served it, or {@code degraded}
	 */
	record Answer(String answer, String servedBy) {

	}

}
