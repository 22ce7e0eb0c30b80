package io.github.llmresilience.execute;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.retry.RetrySettings;
import io.github.llmresilience.state.TargetState.BreakerState;
import io.github.llmresilience.state.TargetState.TimeoutState;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.test.FakeProvider.Reply;
import io.github.llmresilience.test.FakeProvider.Stream;
import io.github.llmresilience.timeout.AdaptiveSettings;
import io.github.llmresilience.overload.OverloadSettings;
import io.github.llmresilience.web.stream.AnthropicMessageStream;
import io.github.llmresilience.web.stream.OpenAiChatStream;
import io.github.llmresilience.web.stream.StreamChunk;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

import org.springframework.http.MediaType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Streams over real HTTP (SSE frames released by the test) on virtual time: time to first
 * token, stalls, long streams, in-stream errors, refusals, cancellation, and timeouts
 * measured from latency.
 */
class StreamingExecutorTests {

	private final EngineHarness h = new EngineHarness();

	@AfterEach
	void close() {
		this.h.close();
	}

	@Test
	void aProviderSilentPastTheFirstTokenLimitFailsOverAndOnlyTheSecondTargetsTokensArrive() {
		Stream silent = new Stream();
		Stream answer = new Stream().send(openAi("Hi")).send(openAi(" there")).send(openAiDone());
		this.h.provider.always("primary", Reply.stream(silent));
		this.h.provider.always("secondary", Reply.stream(answer));
		this.h.build((builder) -> builder.retry(oneAttempt()).timeouts(timeouts(Duration.ofSeconds(5))), "primary",
				"secondary");

		Received received = subscribe(this.h.resilience.stream("chat", this::openAiStream));
		soon().atMost(Duration.ofSeconds(10)).until(() -> this.h.provider.requests("primary") == 1);
		this.h.time.advance(Duration.ofSeconds(4));
		assertThat(this.h.provider.requests("secondary")).isZero();
		this.h.time.advance(Duration.ofSeconds(1));
		answer.end();
		soon().atMost(Duration.ofSeconds(10)).until(received.done::get);

		assertThat(received.error.get()).isNull();
		assertThat(received.texts()).containsExactly("Hi", " there");
		assertThat(this.h.resilience.state().target("primary").breaker().failedCalls()).isEqualTo(1);
	}

	@Test
	void streamsWhoseFirstTokensArriveLateOpenTheBreakerOnSlowCalls() {
		assertThat(streamsWithFirstTokenAfter(Duration.ofSeconds(4))).isEqualTo(CircuitBreaker.State.OPEN);
		BreakerState metrics = this.h.resilience.state().target("primary").breaker();
		assertThat(metrics.slowSuccessfulCalls()).isEqualTo(2);
		assertThat(metrics.failedCalls()).isZero();
	}

	@Test
	void streamsWhoseFirstTokensArriveInTimeLeaveTheBreakerClosed() {
		assertThat(streamsWithFirstTokenAfter(Duration.ofSeconds(1))).isEqualTo(CircuitBreaker.State.CLOSED);
		assertThat(this.h.resilience.state().target("primary").breaker().slowCalls()).isZero();
	}

	/**
	 * Two streams (the breaker's minimum) whose first token comes after the given time.
	 */
	private CircuitBreaker.State streamsWithFirstTokenAfter(Duration firstToken) {
		List<Stream> streams = List.of(new Stream(), new Stream());
		this.h.provider.script("primary", (n) -> Reply.stream(streams.get(n - 1)));
		this.h.build((builder) -> builder
			.breaker(new BreakerSettings(2, 2, 50, Duration.ofSeconds(10), 50, Duration.ofSeconds(30),
					Duration.ofMinutes(15), 1))
			.retry(oneAttempt())
			.timeouts(timeouts(Duration.ofSeconds(5))), "primary");
		for (int i = 0; i < 2; i++) {
			int requests = i + 1;
			Received received = subscribe(this.h.resilience.stream("chat", this::openAiStream));
			soon().atMost(Duration.ofSeconds(10)).until(() -> this.h.provider.requests("primary") == requests);
			this.h.time.advance(firstToken);
			streams.get(i).send(openAi("late")).send(openAiDone()).end();
			soon().atMost(Duration.ofSeconds(10)).until(received.done::get);
			assertThat(received.error.get()).isNull();
			assertThat(received.texts()).containsExactly("late");
		}
		return this.h.resilience.breaker("primary").state();
	}

	@Test
	void aStreamThatStallsAfter900TokensEndsInterruptedAfterThemAndIsNotSentAgain() {
		Stream stalling = new Stream();
		for (int i = 0; i < 900; i++) {
			stalling.send(openAi("t" + i));
		}
		this.h.provider.always("primary", Reply.stream(stalling));
		this.h.provider.always("secondary", Reply.stream(new Stream().send(openAi("never")).send(openAiDone())));
		this.h.build((builder) -> builder.timeouts(timeouts(Duration.ofSeconds(5))), "primary", "secondary");

		Received received = subscribe(this.h.resilience.stream("chat", this::openAiStream));
		soon().atMost(Duration.ofSeconds(20)).until(() -> received.items.size() == 900);
		this.h.time.advance(Duration.ofSeconds(9));
		assertThat(received.done.get()).isFalse();
		this.h.time.advance(Duration.ofSeconds(1));
		soon().atMost(Duration.ofSeconds(10)).until(received.done::get);

		assertThat(received.items).hasSize(900);
		assertThat(received.error.get()).isInstanceOfSatisfying(LlmStreamInterruptedException.class, (interrupted) -> {
			assertThat(interrupted.elementsReceived()).isEqualTo(900);
			assertThat(interrupted.verdict().outcome()).isEqualTo(Outcome.STREAM_INTERRUPTED);
			assertThat(interrupted.causeVerdict().errorType()).contains("timeout");
			assertThat(interrupted.getMessage()).contains("after 900 elements");
		});
		BreakerState metrics = this.h.resilience.state().target("primary").breaker();
		assertThat(metrics.failedCalls()).isEqualTo(1);
		assertThat(metrics.bufferedCalls()).isEqualTo(1);
		assertThat(this.h.provider.requests("primary")).isEqualTo(1);
		assertThat(this.h.provider.requests("secondary")).isZero();
	}

	@Test
	void aNinetySecondStreamWithATokenEvery500MillisecondsCompletes() {
		Stream slowButSteady = new Stream();
		this.h.provider.always("primary", Reply.stream(slowButSteady));
		this.h.build((builder) -> {
		}, "primary");

		Received received = subscribe(this.h.resilience.stream("chat", this::openAiStream));
		for (int i = 0; i < 180; i++) {
			slowButSteady.send(openAi("t" + i));
			int expected = i + 1;
			soon().atMost(Duration.ofSeconds(10)).until(() -> received.items.size() == expected);
			this.h.time.advance(Duration.ofMillis(500));
		}
		slowButSteady.send(openAiDone());
		soon().atMost(Duration.ofSeconds(10)).until(received.done::get);

		assertThat(this.h.time.elapsed()).isEqualTo(Duration.ofSeconds(90));
		assertThat(received.error.get()).isNull();
		assertThat(received.texts()).hasSize(180);
		assertThat(received.items.get(180).finishReason()).isEqualTo("stop");
		assertThat(this.h.resilience.state().target("primary").breaker().successfulCalls()).isEqualTo(1);
	}

	@Test
	void anOverloadedEventMidStreamIsAnInterruptionCountedAsABreakerFailureWithNoFailover() {
		Stream overloaded = new Stream().send(anthropic("content_block_delta",
				"{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hel\"}}"))
			.send(anthropic("content_block_delta",
					"{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"lo\"}}"))
			.send(anthropic("error",
					"{\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\", \"message\": \"Overloaded\"}}"));
		this.h.provider.always("claude", Reply.stream(overloaded));
		this.h.provider.always("secondary", Reply.stream(new Stream().send(openAi("never")).send(openAiDone())));
		buildWithClaudeFirst();

		Received received = subscribe(this.h.resilience.stream("chat", this::anyStream));
		soon().atMost(Duration.ofSeconds(10)).until(received.done::get);

		assertThat(received.texts()).containsExactly("Hel", "lo");
		assertThat(received.error.get()).isInstanceOfSatisfying(LlmStreamInterruptedException.class, (interrupted) -> {
			assertThat(interrupted.elementsReceived()).isEqualTo(2);
			assertThat(interrupted.causeVerdict().outcome()).isEqualTo(Outcome.AVAILABILITY);
			assertThat(interrupted.causeVerdict().errorType()).contains("overloaded_error");
		});
		assertThat(this.h.resilience.state().target("claude").breaker().failedCalls()).isEqualTo(1);
		assertThat(this.h.provider.requests("secondary")).isZero();
		// An overloaded_error speaks for the provider's whole fleet, mid-stream too.
		assertThat(this.h.resilience.state().providers().get("anthropic").overloaded()).isTrue();
	}

	@Test
	void anOverloadedEventBeforeTheFirstTokenIsAvailabilityAndFailsOver() {
		this.h.provider.always("claude", Reply.stream(new Stream().send(anthropic("error",
				"{\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\", \"message\": \"Overloaded\"}}"))));
		this.h.provider.always("secondary",
				Reply.stream(new Stream().send(openAi("from secondary")).send(openAiDone()).end()));
		List<Verdict> verdicts = new CopyOnWriteArrayList<>();
		buildWithClaudeFirst(verdicts);

		Received received = subscribe(this.h.resilience.stream("chat", this::anyStream));
		soon().atMost(Duration.ofSeconds(10)).until(received.done::get);

		assertThat(received.error.get()).isNull();
		assertThat(received.texts()).containsExactly("from secondary");
		assertThat(verdicts.get(0).outcome()).isEqualTo(Outcome.AVAILABILITY);
		assertThat(verdicts.get(0).errorType()).contains("overloaded_error");
		assertThat(verdicts.get(0).providerWide()).isTrue();
		assertThat(this.h.resilience.state().providers().get("anthropic").overloadedUntil())
			.isEqualTo(this.h.time.instant().plus(OverloadSettings.DEFAULT_DURATION));
	}

	@Test
	void aRefusalMidStreamReachesTheSubscriberAsARejectionNotABreakerFailure() {
		this.h.provider.always("claude", Reply.stream(new Stream().send(anthropic("content_block_delta",
				"{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"I\"}}"))
			.send(anthropic("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"refusal\"}}"))));
		buildWithClaudeFirst();

		Received received = subscribe(this.h.resilience.stream("chat", this::anyStream));
		soon().atMost(Duration.ofSeconds(10)).until(received.done::get);

		assertThat(received.error.get()).isInstanceOfSatisfying(LlmRejectedException.class,
				(rejected) -> assertThat(rejected.verdict().outcome()).isEqualTo(Outcome.CONTENT_FILTER));
		assertThat(this.h.resilience.state().target("claude").breaker().bufferedCalls()).isZero();
		assertThat(this.h.provider.requests("secondary")).isZero();
	}

	@Test
	void cancellingAStreamIsNeitherSuccessNorFailureAndFreesTheTrialPermit() {
		Stream endless = new Stream().send(openAi("a")).send(openAi("b"));
		this.h.provider.script("primary", (n) -> (n <= 2) ? Reply.json(503, FakeProviderBodies.SERVER_ERROR)
				: (n == 3) ? Reply.stream(endless) : Reply.stream(new Stream().send(openAi("ok")).send(openAiDone())));
		this.h.build((builder) -> builder.retry(oneAttempt())
			.breaker(new BreakerSettings(2, 2, 50, Duration.ofSeconds(10), 50, Duration.ofSeconds(30),
					Duration.ofMinutes(15), 1)),
				"primary");
		this.h.chatFailure();
		this.h.chatFailure();
		this.h.time.advance(Duration.ofSeconds(31));

		Received first = subscribe(this.h.resilience.stream("chat", this::openAiStream));
		soon().atMost(Duration.ofSeconds(10)).until(() -> first.items.size() == 2);
		assertThat(this.h.resilience.breaker("primary").state()).isEqualTo(CircuitBreaker.State.HALF_OPEN);
		first.subscription.dispose();

		Received second = subscribe(this.h.resilience.stream("chat", this::openAiStream));
		soon().atMost(Duration.ofSeconds(10)).until(second.done::get);
		assertThat(second.error.get()).isNull();
		assertThat(second.texts()).containsExactly("ok");
		assertThat(this.h.resilience.breaker("primary").state()).isEqualTo(CircuitBreaker.State.CLOSED);
	}

	@Test
	void aProviderTurningSlowOpensTheBreakerThroughTheSlowCallTripWithinOneWindow() {
		this.h.provider.always("primary", Reply.ok(FakeProviderBodies.OK));
		this.h.build((builder) -> builder.retry(oneAttempt())
			.breaker(new BreakerSettings(20, 10, 50, Duration.ofSeconds(5), 50, Duration.ofSeconds(30),
					Duration.ofMinutes(15), 1))
			.timeouts(TimeoutSettings.defaults()), "primary");

		for (int i = 0; i < 10; i++) {
			callTaking(Duration.ofMillis(800 + 40 * i));
		}
		Duration p99 = this.h.resilience.state().target("primary").attemptTimeout().p99();
		assertThat(p99).isEqualTo(Duration.ofMillis(1160));
		int slowCalls = 0;
		while (this.h.resilience.breaker("primary").state() == CircuitBreaker.State.CLOSED && slowCalls < 20) {
			callTaking(p99.multipliedBy(8));
			slowCalls++;
		}
		assertThat(p99.multipliedBy(8)).isLessThan(Duration.ofSeconds(30));
		assertThat(this.h.resilience.breaker("primary").state()).isEqualTo(CircuitBreaker.State.OPEN);
		assertThat(slowCalls).isEqualTo(10);
		assertThat(this.h.resilience.state().target("primary").breaker().failedCalls()).isZero();
	}

	@Test
	void after200SamplesWithAP99OfTwoSecondsTheTimeoutIsSixAndASevenSecondHangTimesOutThere() {
		this.h.provider.script("primary", (n) -> (n <= 200) ? Reply.ok(FakeProviderBodies.OK) : Reply.hang());
		List<Long> attemptNanos = new CopyOnWriteArrayList<>();
		this.h.build((builder) -> builder.retry(oneAttempt()).observer(new CallObserver() {
			@Override
			public void onAttempt(String chain, Target target, Verdict verdict, long nanos) {
				attemptNanos.add(nanos);
			}
		}), "primary");

		for (int i = 0; i < 200; i++) {
			callTaking((i % 20 == 0) ? Duration.ofSeconds(2) : Duration.ofSeconds(1));
		}
		TimeoutState timeout = this.h.resilience.state().target("primary").attemptTimeout();
		assertThat(timeout.samples()).isEqualTo(200);
		assertThat(timeout.p99()).isEqualTo(Duration.ofSeconds(2));
		assertThat(timeout.measured()).isTrue();
		assertThat(timeout.current()).isEqualTo(Duration.ofSeconds(6));

		AtomicReference<Throwable> failure = new AtomicReference<>();
		this.h.resilience
			.execute("chat",
					(attempt) -> this.h.webClient.post()
						.uri(attempt.target().baseUrl() + "/v1")
						.bodyValue("{}")
						.retrieve()
						.bodyToMono(String.class))
			.subscribe((value) -> {
			}, failure::set);
		soon().atMost(Duration.ofSeconds(10)).until(() -> this.h.provider.requests("primary") == 201);
		this.h.time.advance(Duration.ofMillis(5_999));
		assertThat(failure.get()).isNull();
		this.h.time.advance(Duration.ofMillis(1));
		soon().atMost(Duration.ofSeconds(10)).until(() -> failure.get() != null);
		assertThat(failure.get()).isInstanceOf(LlmUnavailableException.class);
		assertThat(attemptNanos.get(attemptNanos.size() - 1)).isEqualTo(Duration.ofSeconds(6).toNanos());
	}

	@Test
	void timeToFirstTokenIsMeasuredForStreams() {
		this.h.provider.script("primary", (n) -> Reply.stream(new Stream().send(openAi("x")).send(openAiDone()).end()));
		this.h.build((builder) -> {
		}, "primary");
		for (int i = 0; i < 3; i++) {
			Received received = subscribe(this.h.resilience.stream("chat", this::openAiStream));
			soon().atMost(Duration.ofSeconds(10)).until(received.done::get);
		}
		assertThat(this.h.resilience.state().target("primary").firstTokenTimeout().samples()).isEqualTo(3);
		assertThat(this.h.resilience.state().target("primary").attemptTimeout().samples()).isZero();
	}

	/** Awaitility polling fast: the test waits for real I/O of a few milliseconds. */
	private static org.awaitility.core.ConditionFactory soon() {
		return await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1));
	}

	private void callTaking(Duration latency) {
		this.h.time.await(
				this.h.resilience.execute("chat",
						(attempt) -> this.h.webClientCall(attempt).delayElement(latency, this.h.time)),
				this.h.inFlight::get);
	}

	private void buildWithClaudeFirst() {
		buildWithClaudeFirst(new CopyOnWriteArrayList<>());
	}

	private void buildWithClaudeFirst(List<Verdict> verdicts) {
		Target claude = new Target("claude", "anthropic", "anthropic-acct", "claude-sonnet", "us",
				URI.create(this.h.provider.baseUrl("claude")), null);
		this.h.build(List.of(claude, this.h.target("secondary", "acct-b")),
				(builder) -> builder.retry(oneAttempt()).observer(new CallObserver() {
					@Override
					public void onAttempt(String chain, Target target, Verdict verdict, long nanos) {
						verdicts.add(verdict);
					}
				}));
	}

	private Flux<StreamChunk> openAiStream(Attempt attempt) {
		return OpenAiChatStream.chunks(sse(attempt, "/v1/chat/completions"));
	}

	private Flux<StreamChunk> anyStream(Attempt attempt) {
		return attempt.target().provider().equals("anthropic")
				? AnthropicMessageStream.chunks(sse(attempt, "/v1/messages")) : openAiStream(attempt);
	}

	private Flux<org.springframework.http.codec.ServerSentEvent<String>> sse(Attempt attempt, String path) {
		return this.h.webClient.post()
			.uri(attempt.target().baseUrl() + path)
			.accept(MediaType.TEXT_EVENT_STREAM)
			.bodyValue("{\"stream\":true}")
			.retrieve()
			.bodyToFlux(OpenAiChatStream.EVENTS);
	}

	private static String openAi(String text) {
		return "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + text
				+ "\"},\"finish_reason\":null}]}\n\n";
	}

	private static String openAiDone() {
		return "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
	}

	private static String anthropic(String event, String data) {
		return "event: " + event + "\ndata: " + data + "\n\n";
	}

	private static TimeoutSettings timeouts(Duration firstToken) {
		return new TimeoutSettings(Duration.ofSeconds(30), firstToken, Duration.ofSeconds(10),
				AdaptiveSettings.disabled());
	}

	private static RetrySettings oneAttempt() {
		return new RetrySettings(1, Duration.ofMillis(500), Duration.ofSeconds(30), 0.1, Duration.ofSeconds(10), 3);
	}

	private static Received subscribe(Flux<StreamChunk> stream) {
		Received received = new Received();
		received.subscription = stream.subscribe(received.items::add, (error) -> {
			received.error.set(error);
			received.done.set(true);
		}, () -> received.done.set(true));
		return received;
	}

	/** What a subscriber saw. */
	private static final class Received {

		final List<StreamChunk> items = new CopyOnWriteArrayList<>();

		final AtomicReference<Throwable> error = new AtomicReference<>();

		final AtomicBoolean done = new AtomicBoolean();

		Disposable subscription;

		List<String> texts() {
			return this.items.stream()
				.map(StreamChunk::text)
				.filter(Function.<String>identity().andThen((text) -> !text.isEmpty())::apply)
				.toList();
		}

	}

}
