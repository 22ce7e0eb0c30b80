package io.github.llmresilience.sample;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.sample.jobs.Job;
import io.github.llmresilience.sample.jobs.JobState;
import io.github.llmresilience.sample.simulator.Mode;
import io.github.llmresilience.sample.simulator.TargetStats;
import io.github.llmresilience.state.TargetState.BreakerState;
import io.github.llmresilience.test.ManualTime;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.context.annotation.Bean;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The answers and jobs APIs end to end: the app and its simulator on their own ports,
 * driven over HTTP. Time is a {@link ManualTime} shared by llm-resilience, the simulator
 * and the job queue, so a retry-after is waited for by moving it.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.simulator.latency-scale=0.02", "llm.resilience.retry.backoff-base=10ms" })
@AutoConfigureWebTestClient
class AnswersApiTests {

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

	@Test
	void answersFromPrimary() {
		ask("What is a circuit breaker?").expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.servedBy")
			.isEqualTo("primary")
			.jsonPath("$.answer")
			.value((String answer) -> assertThat(answer).endsWith("to: What is a circuit breaker?"));
		assertThat(this.simulator.stats("primary").statuses()).containsExactly(Map.entry(200, 1L));
	}

	@Test
	void failsOverToSecondaryWhilePrimaryIsDown() {
		this.simulator.mode("primary", "{\"mode\": \"outage\"}");

		ask("Still there?").expectStatus().isOk().expectBody().jsonPath("$.servedBy").isEqualTo("secondary");
		assertThat(this.simulator.stats("primary").mode(Mode.OUTAGE).statuses()).containsOnlyKeys(503);
		assertThat(this.simulator.stats("secondary").statuses()).containsExactly(Map.entry(200, 1L));
	}

	@Test
	void outageIsAFast503WithRetryAfterOnceTheBreakersAreOpen() {
		this.simulator.mode("primary", "{\"mode\": \"outage\"}");
		this.simulator.mode("secondary", "{\"mode\": \"outage\"}");

		// Every call fails until both breakers have seen minimum-calls failures and open;
		// from then on a call is refused without a request to the simulator.
		await().atMost(PATIENCE).until(() -> {
			long before = this.simulator.totalRequests();
			ask("Anyone?").expectStatus().isEqualTo(503);
			return this.simulator.totalRequests() == before;
		});
		assertThat(this.resilience.state().target("primary").breaker().status()).isEqualTo(BreakerState.Status.OPEN);
		assertThat(this.resilience.state().target("secondary").breaker().status()).isEqualTo(BreakerState.Status.OPEN);

		long before = this.simulator.totalRequests();
		long expectedRetryAfter = secondsUntil(this.resilience.availableAt("chat"));
		EntityExchangeResult<byte[]> refused = ask("Anyone now?").expectStatus()
			.isEqualTo(503)
			.expectBody()
			.jsonPath("$.error.code")
			.isEqualTo("ai_unavailable")
			.returnResult();
		assertThat(refused.getResponseHeaders().getFirst(HttpHeaders.RETRY_AFTER))
			.isEqualTo(Long.toString(expectedRetryAfter));
		assertThat(expectedRetryAfter).isPositive();
		assertThat(this.simulator.totalRequests()).isEqualTo(before);
	}

	@Test
	void throttledPrimaryGetsNoCallUntilItsRetryAfter() {
		this.simulator.mode("primary", "{\"mode\": \"throttle\", \"retryAfterSeconds\": 2}");

		ask("First").expectStatus().isOk().expectBody().jsonPath("$.servedBy").isEqualTo("secondary");
		assertThat(this.simulator.stats("primary").statuses()).containsExactly(Map.entry(429, 1L));
		for (int i = 0; i < 3; i++) {
			ask("Meanwhile " + i).expectStatus().isOk().expectBody().jsonPath("$.servedBy").isEqualTo("secondary");
		}
		assertThat(this.simulator.stats("primary").requests()).isEqualTo(1);

		time.advance(Duration.ofSeconds(2));
		this.simulator.mode("primary", "{\"mode\": \"normal\"}");
		ask("After the wait").expectStatus().isOk().expectBody().jsonPath("$.servedBy").isEqualTo("primary");
		TargetStats primary = this.simulator.stats("primary");
		assertThat(primary.requests()).isEqualTo(2);
		assertThat(primary.insideRetryAfter()).isZero();
	}

	@Test
	void everyTargetThrottledIsA429WithRetryAfter() {
		// Limits that outlast a call's deadline (timeouts.call, 60 s): one that lifts
		// within it is waited out instead.
		this.simulator.mode("primary", "{\"mode\": \"throttle\", \"retryAfterSeconds\": 90}");
		this.simulator.mode("secondary", "{\"mode\": \"throttle\", \"retryAfterSeconds\": 120}");

		EntityExchangeResult<byte[]> result = ask("Busy?").expectStatus()
			.isEqualTo(429)
			.expectBody()
			.jsonPath("$.error.code")
			.isEqualTo("provider_rate_limited")
			.returnResult();
		// The earliest any target may serve again: primary's gate.
		assertThat(result.getResponseHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("90");
	}

	@Test
	void contentFilterIs422AfterExactlyOneRequest() {
		this.simulator.mode("primary", "{\"mode\": \"content-filter\"}");

		ask("How do I pick a lock?").expectStatus()
			.isEqualTo(422)
			.expectBody()
			.jsonPath("$.error.code")
			.isEqualTo("content_filtered");
		assertThat(this.simulator.totalRequests()).isEqualTo(1);
	}

	@Test
	void requestTheProviderRejectsIs400AfterExactlyOneRequest() {
		ask("x".repeat(40_000)).expectStatus()
			.isBadRequest()
			.expectBody()
			.jsonPath("$.error.code")
			.isEqualTo("invalid_request");
		assertThat(this.simulator.stats("primary").statuses()).containsExactly(Map.entry(400, 1L));
		assertThat(this.simulator.totalRequests()).isEqualTo(1);
	}

	@Test
	void blankQuestionIs400WithoutAnyRequest() {
		ask(" ").expectStatus().isBadRequest().expectBody().jsonPath("$.error.code").isEqualTo("invalid_request");
		assertThat(this.simulator.totalRequests()).isZero();
	}

	@Test
	void streamsTheAnswerTokenByToken() {
		List<ServerSentEvent<String>> events = stream("Hello there");

		assertThat(events).extracting(ServerSentEvent::event).startsWith("token").endsWith("done");
		assertThat(events).filteredOn((event) -> "token".equals(event.event())).hasSizeGreaterThan(3);
		assertThat(events.get(events.size() - 1).data()).contains("\"servedBy\":\"primary\"");
	}

	@Test
	void streamThatDropsMidwayEndsWithAnErrorEvent() {
		this.simulator.mode("primary", "{\"mode\": \"midstream-drop\"}");

		List<ServerSentEvent<String>> events = stream("Tell me a long story");

		assertThat(events).extracting(ServerSentEvent::event).startsWith("token").endsWith("error");
		assertThat(events.get(events.size() - 1).data()).contains("stream_interrupted");
	}

	@Test
	void streamFailsOverBeforeItsFirstTokenAndIsServedBySecondary() {
		this.simulator.mode("primary", "{\"mode\": \"outage\"}");

		List<ServerSentEvent<String>> events = stream("Hello there");

		assertThat(events).extracting(ServerSentEvent::event).startsWith("token").endsWith("done");
		assertThat(events.get(events.size() - 1).data()).contains("\"servedBy\":\"secondary\"");
		assertThat(this.simulator.stats().targets().get("primary").requests()).isGreaterThanOrEqualTo(1);
	}

	@Test
	void streamThatDropsMidwayIsABreakerFailureAndIsNotRestartedElsewhere() {
		this.simulator.mode("primary", "{\"mode\": \"midstream-drop\"}");

		stream("Tell me a long story");

		assertThat(this.resilience.state().target("primary").breaker().failedCalls()).isEqualTo(1);
		assertThat(this.simulator.stats().targets().containsKey("secondary")
				? this.simulator.stats().targets().get("secondary").requests() : 0L)
			.isZero();
	}

	@Test
	void streamWithNoUsableTargetIs503WithRetryAfter() {
		// An operator forced both breakers open: no end to promise, so Retry-After is the
		// domain's open-duration-max (15 min), a time to look again.
		this.resilience.operator().forceOpen("primary");
		this.resilience.operator().forceOpen("secondary");

		this.http.get()
			.uri("/v1/answers/stream?question=Hello")
			.accept(MediaType.TEXT_EVENT_STREAM)
			.exchange()
			.expectStatus()
			.isEqualTo(503)
			.expectHeader()
			.valueEquals(HttpHeaders.RETRY_AFTER, "900")
			.expectBody()
			.jsonPath("$.error.code")
			.isEqualTo("ai_unavailable");
		assertThat(this.simulator.totalRequests()).isZero();
	}

	@Test
	void jobAnswersInTheBackground() {
		String id = submit("Summarise this ticket").id();

		Job done = awaitJob(id, JobState.SUCCEEDED);
		assertThat(done.servedBy()).isEqualTo("primary");
		assertThat(done.attempts()).isZero();
		this.http.get()
			.uri("/v1/jobs")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.succeeded")
			.value((Integer succeeded) -> assertThat(succeeded).isPositive());
	}

	@Test
	void jobWaitsWithoutSpendingAnAttemptWhileNoTargetCanServe() {
		this.simulator.mode("primary", "{\"mode\": \"outage\"}");
		this.simulator.mode("secondary", "{\"mode\": \"outage\"}");

		String id = submit("Summarise this ticket").id();
		Job waiting = await().atMost(PATIENCE)
			.until(() -> job(id), (job) -> job.state() == JobState.QUEUED && job.lastError() != null);
		assertThat(waiting.attempts()).isZero();
		assertThat(waiting.lastError()).startsWith("ai_unavailable");
		assertThat(waiting.notBefore()).isAfter(time.instant());

		this.simulator.mode("primary", "{\"mode\": \"normal\"}");
		this.simulator.mode("secondary", "{\"mode\": \"normal\"}");
		time.advanceTo(waiting.notBefore().plusSeconds(1));
		Job done = awaitJob(id, JobState.SUCCEEDED);
		assertThat(done.attempts()).isZero();
	}

	@Test
	void unknownJobIs404() {
		this.http.get()
			.uri("/v1/jobs/job-none")
			.exchange()
			.expectStatus()
			.isNotFound()
			.expectBody()
			.jsonPath("$.error.code")
			.isEqualTo("job_not_found");
	}

	private WebTestClient.ResponseSpec ask(String question) {
		return this.http.post()
			.uri("/v1/answers")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue(Map.of("question", question))
			.exchange();
	}

	private List<ServerSentEvent<String>> stream(String question) {
		return this.http.get()
			.uri((uri) -> uri.path("/v1/answers/stream").queryParam("question", question).build())
			.accept(MediaType.TEXT_EVENT_STREAM)
			.exchange()
			.expectStatus()
			.isOk()
			.returnResult(new ParameterizedTypeReference<ServerSentEvent<String>>() {
			})
			.getResponseBody()
			.collectList()
			.block(PATIENCE);
	}

	private Job submit(String question) {
		return this.http.post()
			.uri("/v1/jobs")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue(Map.of("question", question))
			.exchange()
			.expectStatus()
			.isAccepted()
			.expectBody(Job.class)
			.returnResult()
			.getResponseBody();
	}

	private Job job(String id) {
		return this.http.get()
			.uri("/v1/jobs/{id}", id)
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(Job.class)
			.returnResult()
			.getResponseBody();
	}

	private Job awaitJob(String id, JobState state) {
		return await().atMost(PATIENCE).until(() -> job(id), (job) -> job.state() == state);
	}

	private long secondsUntil(Instant instant) {
		Duration wait = Duration.between(time.instant(), instant);
		return wait.getSeconds() + ((wait.getNano() > 0) ? 1 : 0);
	}

}
