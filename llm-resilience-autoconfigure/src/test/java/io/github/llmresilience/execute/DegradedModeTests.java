package io.github.llmresilience.execute;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.extract.ErrorExtractors;
import io.github.llmresilience.retry.RetrySettings;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import io.github.llmresilience.test.FakeProvider.Stream;
import io.github.llmresilience.timeout.AdaptiveSettings;
import io.github.llmresilience.web.WebClientErrorExtractor;
import io.github.llmresilience.web.stream.OpenAiChatStream;
import io.github.llmresilience.web.stream.StreamChunk;
import org.awaitility.core.ConditionFactory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.http.MediaType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Degraded mode over real HTTP on virtual time: a call no target of its chain can serve
 * is answered by its fallback (reactive, streaming before the first element, blocking),
 * and only then; a rejection, the caller's own exception and a stream past its first
 * element reach the caller as without one.
 */
class DegradedModeTests {

	private static final String CONTEXT_TOO_LONG = EngineHarness.fixture("openai-400-context-length-exceeded");

	private final EngineHarness h = new EngineHarness();

	private final Calls calls = new Calls();

	private final AtomicInteger asked = new AtomicInteger();

	private final AtomicReference<Degradation> told = new AtomicReference<>();

	@AfterEach
	void close() {
		this.h.close();
	}

	private void bothDown() {
		this.h.provider.always("primary", Reply.json(503, FakeProviderBodies.SERVER_ERROR));
		this.h.provider.always("secondary", Reply.json(503, FakeProviderBodies.SERVER_ERROR));
		this.h.build((builder) -> builder.observer(this.calls), "primary", "secondary");
	}

	private LlmFallback<String> cached(String answer) {
		return (degradation) -> {
			this.asked.incrementAndGet();
			this.told.set(degradation);
			return answer;
		};
	}

	@Test
	void aCallNoTargetCanServeIsAnsweredByItsFallbackToldEveryVerdictAndWhenToComeBack() {
		bothDown();

		String answer = this.h.time.await(
				this.h.resilience.execute("chat", CallOptions.NONE, this.h::webClientCall, cached("from the cache")),
				this.h.inFlight::get);

		assertThat(answer).isEqualTo("from the cache");
		assertThat(this.asked).hasValue(1);
		Degradation degradation = this.told.get();
		assertThat(degradation.chain()).isEqualTo("chat");
		List<ChainStep> steps = degradation.unavailable().steps();
		assertThat(steps).extracting(ChainStep::target).containsOnly("primary", "secondary");
		assertThat(steps).hasSize(this.h.provider.totalRequests())
			.allSatisfy((step) -> assertThat(step.verdict().outcome()).isEqualTo(Outcome.AVAILABILITY));
		assertThat(degradation.retryAfter()).isEqualTo(degradation.unavailable().retryAfter())
			.isAfterOrEqualTo(this.h.time.instant());
		assertThat(this.calls.ends).containsExactly("unavailable", "ended", "degraded:answered");
	}

	@Test
	void theCallsBackoffIsToldWithItsWholeTime() {
		bothDown();

		this.h.time.await(this.h.resilience.execute("chat", CallOptions.NONE, this.h::webClientCall, cached("x")),
				this.h.inFlight::get);

		// Default retries: two backoffs on each target, all of them waiting.
		assertThat(this.calls.backoffs.get()).isPositive();
		assertThat(this.calls.endedBackoffNanos.get()).isEqualTo(this.calls.backoffs.get());
		assertThat(this.calls.endedNanos.get()).isGreaterThanOrEqualTo(this.calls.endedBackoffNanos.get());
	}

	@Test
	void aCallServedWithoutRetriesEndsWithNoBackoff() {
		this.h.provider.always("primary", Reply.ok(FakeProviderBodies.OK));
		this.h.build((builder) -> builder.observer(this.calls), "primary");

		assertThat(this.h.time.await(
				this.h.resilience.execute("chat", CallOptions.NONE, this.h::webClientCall, cached("x")),
				this.h.inFlight::get))
			.isEqualTo(FakeProviderBodies.OK);
		assertThat(this.asked).hasValue(0);
		assertThat(this.calls.ends).containsExactly("served", "ended");
		assertThat(this.calls.endedBackoffNanos.get()).isZero();
	}

	@Test
	void aRejectedRequestReachesTheCallerAndTheFallbackIsNotAsked() {
		this.h.provider.always("primary", Reply.json(400, CONTEXT_TOO_LONG));
		this.h.provider.always("secondary", Reply.ok(FakeProviderBodies.OK_SECONDARY));
		this.h.build((builder) -> builder.observer(this.calls), "primary", "secondary");

		assertThatExceptionOfType(LlmRejectedException.class).isThrownBy(() -> this.h.time.await(
				this.h.resilience.execute("chat", CallOptions.NONE, this.h::webClientCall, cached("x")),
				this.h.inFlight::get));
		assertThat(this.asked).hasValue(0);
		assertThat(this.calls.ends).isEmpty();
	}

	@Test
	void theCallersOwnUnavailableExceptionFromAnotherChainIsNotDegraded() {
		this.h.provider.always("primary", Reply.ok(FakeProviderBodies.OK));
		this.h.build((builder) -> builder.observer(this.calls), "primary");
		LlmUnavailableException inner = new LlmUnavailableException("other", List.of(), false, Instant.EPOCH, null,
				null);

		assertThatExceptionOfType(LlmUnavailableException.class).isThrownBy(() -> this.h.time.await(
				this.h.resilience.execute("chat", CallOptions.NONE,
						(attempt) -> this.h.webClientCall(attempt).then(Mono.<String>error(inner)), cached("x")),
				this.h.inFlight::get))
			.isSameAs(inner);
		assertThat(this.asked).hasValue(0);
	}

	@Test
	void aFallbackThatThrowsReachesTheCallerWithTheUnavailableExceptionSuppressedAndNoBreakerCountsIt() {
		this.h.provider.always("primary", Reply.json(503, FakeProviderBodies.SERVER_ERROR));
		this.h.build((builder) -> builder.observer(this.calls).retry(oneAttempt()), "primary");
		LlmFallback<String> broken = (degradation) -> {
			throw new IllegalStateException("The cache is empty");
		};

		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> this.h.time.await(
					this.h.resilience.execute("chat", CallOptions.NONE, this.h::webClientCall, broken),
					this.h.inFlight::get))
			.withMessage("The cache is empty")
			.satisfies((ex) -> assertThat(ex.getSuppressed()).singleElement()
				.isInstanceOfSatisfying(LlmUnavailableException.class,
						(unavailable) -> assertThat(unavailable.chain()).isEqualTo("chat")));
		assertThat(this.h.resilience.state().target("primary").breaker().failedCalls())
			.isEqualTo(this.h.provider.requests("primary"));
		assertThat(this.calls.ends).containsExactly("unavailable", "ended", "degraded:failed");
	}

	@Test
	void aFallbackThatDeclinesRethrowsTheUnavailableExceptionAsItIs() {
		this.h.provider.always("primary", Reply.json(503, FakeProviderBodies.SERVER_ERROR));
		this.h.build((builder) -> builder.retry(oneAttempt()), "primary");
		LlmFallback<String> declining = (degradation) -> {
			throw degradation.unavailable();
		};

		assertThatExceptionOfType(LlmUnavailableException.class).isThrownBy(() -> this.h.time.await(
				this.h.resilience.execute("chat", CallOptions.NONE, this.h::webClientCall, declining),
				this.h.inFlight::get))
			.satisfies((ex) -> assertThat(ex.getSuppressed()).isEmpty());
	}

	@Test
	void aFallbackReturningNullIsAFailureNamingTheChain() {
		this.h.provider.always("primary", Reply.json(503, FakeProviderBodies.SERVER_ERROR));
		this.h.build((builder) -> builder.retry(oneAttempt()), "primary");

		assertThatExceptionOfType(NullPointerException.class).isThrownBy(() -> this.h.time.await(
				this.h.resilience.execute("chat", CallOptions.NONE, this.h::webClientCall, (degradation) -> null),
				this.h.inFlight::get))
			.withMessageContaining("chain 'chat'");
	}

	@Test
	void anObserverThatThrowsWhenToldOfTheEndOrTheDegradedAnswerChangesNothing() {
		this.h.provider.always("primary", Reply.json(503, FakeProviderBodies.SERVER_ERROR));
		this.h.build((builder) -> builder.retry(oneAttempt()).observer(new CallObserver() {

			@Override
			public void onCallEnded(String chain, long nanos, long backoffNanos) {
				throw new IllegalStateException("observer bug");
			}

			@Override
			public void onDegraded(String chain, LlmUnavailableException unavailable, @Nullable Throwable failure,
					long nanos) {
				throw new IllegalStateException("observer bug");
			}

		}), "primary");

		assertThat(this.h.time.await(
				this.h.resilience.execute("chat", CallOptions.NONE, this.h::webClientCall, cached("from the cache")),
				this.h.inFlight::get))
			.isEqualTo("from the cache");
	}

	@Test
	void aBlockingCallNoTargetCanServeReturnsTheFallbacksAnswerOnTheCallingThread() {
		bothDown();
		AtomicReference<Thread> answeredOn = new AtomicReference<>();
		AtomicReference<Thread> caller = new AtomicReference<>();

		CompletableFuture<String> future = CompletableFuture.supplyAsync(() -> {
			caller.set(Thread.currentThread());
			return this.h.resilience.call("chat", CallOptions.NONE, this.h::restClientCall, (degradation) -> {
				answeredOn.set(Thread.currentThread());
				return "fixed: retry after " + degradation.retryAfter();
			});
		});

		assertThat(this.h.time.await(future, this.h.inFlight::get, Duration.ofSeconds(10))).startsWith("fixed: ");
		assertThat(answeredOn.get()).isSameAs(caller.get());
		assertThat(this.calls.ends).containsExactly("unavailable", "ended", "degraded:answered");
	}

	@Test
	void aBlockingRejectionIsThrownAndTheFallbackIsNotAsked() {
		this.h.provider.always("primary", Reply.json(400, CONTEXT_TOO_LONG));
		this.h.build((builder) -> {
		}, "primary");

		CompletableFuture<String> future = CompletableFuture
			.supplyAsync(() -> this.h.resilience.call("chat", CallOptions.NONE, this.h::restClientCall, cached("x")));

		assertThatExceptionOfType(LlmRejectedException.class)
			.isThrownBy(() -> this.h.time.await(future, this.h.inFlight::get, Duration.ofSeconds(10)));
		assertThat(this.asked).hasValue(0);
	}

	@Test
	void aStreamNoTargetCanServeBeforeItsFirstElementEmitsTheFallbacksAnswerAndCompletes() {
		bothDown();
		LlmFallback<StreamChunk> fallback = (degradation) -> {
			this.asked.incrementAndGet();
			return new StreamChunk("Here is what we answered last time.", "stop");
		};

		List<StreamChunk> chunks = this.h.time.await(
				this.h.resilience.stream("chat", CallOptions.NONE, this::openAiStream, fallback).collectList(),
				this.h.inFlight::get);

		assertThat(chunks).extracting(StreamChunk::text).containsExactly("Here is what we answered last time.");
		assertThat(this.asked).hasValue(1);
	}

	@Test
	void aStreamThatFailsAfterItsFirstElementEndsInterruptedAndTheFallbackIsNotAsked() {
		Stream stalling = new Stream().send(openAi("Hi"));
		this.h.provider.always("primary", Reply.stream(stalling));
		this.h.build((builder) -> builder.timeouts(new TimeoutSettings(Duration.ofSeconds(30), Duration.ofSeconds(5),
				Duration.ofSeconds(10), AdaptiveSettings.disabled())), "primary");
		List<StreamChunk> received = new CopyOnWriteArrayList<>();
		AtomicReference<@Nullable Throwable> error = new AtomicReference<>();
		AtomicBoolean done = new AtomicBoolean();

		this.h.resilience.stream("chat", CallOptions.NONE, this::openAiStream, (degradation) -> {
			this.asked.incrementAndGet();
			return new StreamChunk("degraded", "stop");
		}).subscribe(received::add, (failure) -> {
			error.set(failure);
			done.set(true);
		}, () -> done.set(true));
		soon().until(() -> received.size() == 1);
		// Reactor arms the stall timer after it hands the element on: advance until the
		// timer has been armed and has fired, not once (a busy machine armed it after).
		soon().until(() -> {
			this.h.time.advance(Duration.ofSeconds(10));
			return done.get();
		});

		assertThat(error.get()).isInstanceOf(LlmStreamInterruptedException.class);
		assertThat(received).extracting(StreamChunk::text).containsExactly("Hi");
		assertThat(this.asked).hasValue(0);
	}

	@Test
	void onTheSystemClockTheBackoffShareIsMostOfACallThatWaitedOnARetryHint() {
		try (FakeProvider provider = new FakeProvider()) {
			provider.script("primary",
					(n) -> (n == 1) ? Reply.json(503, Map.of("retry-after-ms", "300"), FakeProviderBodies.SERVER_ERROR)
							: Reply.ok(FakeProviderBodies.OK));
			Calls calls = new Calls();
			LlmResilience resilience = LlmResilience.builder()
				.clock(Clock.systemUTC())
				.extractors(ErrorExtractors.standard().with(List.of(new WebClientErrorExtractor())))
				.target(new Target("primary", "openai", "acct", "gpt-4o", "us", URI.create(provider.baseUrl("primary")),
						null))
				.chain("chat", "primary")
				.observer(calls)
				.build();

			String answer = resilience
				.execute("chat",
						(attempt) -> this.h.webClient.post()
							.uri(attempt.target().baseUrl() + "/v1/chat/completions")
							.bodyValue("{}")
							.retrieve()
							.bodyToMono(String.class))
				.block(Duration.ofSeconds(30));

			assertThat(answer).isEqualTo(FakeProviderBodies.OK);
			assertThat(calls.endedBackoffNanos.get()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(300));
			double share = (double) calls.endedBackoffNanos.get() / calls.endedNanos.get();
			// Two local requests take milliseconds; the 300 ms wait is most of the call.
			assertThat(share).isGreaterThan(0.3).isLessThanOrEqualTo(1.0);
		}
	}

	private Flux<StreamChunk> openAiStream(Attempt attempt) {
		this.h.inFlight.incrementAndGet();
		return OpenAiChatStream
			.chunks(this.h.webClient.post()
				.uri(attempt.target().baseUrl() + "/v1/chat/completions")
				.accept(MediaType.TEXT_EVENT_STREAM)
				.bodyValue("{\"stream\":true}")
				.retrieve()
				.bodyToFlux(OpenAiChatStream.EVENTS))
			.doFinally((signal) -> this.h.inFlight.decrementAndGet());
	}

	private static String openAi(String text) {
		return "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + text
				+ "\"},\"finish_reason\":null}]}\n\n";
	}

	private static RetrySettings oneAttempt() {
		return new RetrySettings(1, Duration.ofMillis(500), Duration.ofSeconds(30), 0.1, Duration.ofSeconds(10), 3);
	}

	private static ConditionFactory soon() {
		return await().atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1));
	}

	/** How calls ended, as the engine tells an observer. */
	private static final class Calls implements CallObserver {

		final List<String> ends = new CopyOnWriteArrayList<>();

		final AtomicLong backoffs = new AtomicLong();

		final AtomicLong endedNanos = new AtomicLong(-1);

		final AtomicLong endedBackoffNanos = new AtomicLong(-1);

		@Override
		public void onBackoff(String chain, Target target, long nanos) {
			this.backoffs.addAndGet(nanos);
		}

		@Override
		public void onServed(String chain, Target target, int position, long nanos) {
			this.ends.add("served");
		}

		@Override
		public void onUnavailable(String chain, LlmUnavailableException exception, long nanos) {
			this.ends.add("unavailable");
		}

		@Override
		public void onCallEnded(String chain, long nanos, long backoffNanos) {
			this.ends.add("ended");
			this.endedNanos.set(nanos);
			this.endedBackoffNanos.set(backoffNanos);
		}

		@Override
		public void onDegraded(String chain, LlmUnavailableException unavailable, @Nullable Throwable failure,
				long nanos) {
			this.ends.add("degraded:" + ((failure != null) ? "failed" : "answered"));
		}

	}

}
