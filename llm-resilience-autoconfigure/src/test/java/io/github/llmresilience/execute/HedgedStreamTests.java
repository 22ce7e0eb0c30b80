package io.github.llmresilience.execute;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.extract.ErrorExtractors;
import io.github.llmresilience.hedge.HedgingSettings;
import io.github.llmresilience.metrics.LlmCallMetrics;
import io.github.llmresilience.retry.RetrySettings;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import io.github.llmresilience.test.FakeProvider.Stream;
import io.github.llmresilience.timeout.AdaptiveSettings;
import io.github.llmresilience.timeout.CoalescingTimer;
import io.github.llmresilience.web.WebClientErrorExtractor;
import io.github.llmresilience.web.stream.OpenAiChatStream;
import io.github.llmresilience.web.stream.StreamChunk;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * First-token hedging over real HTTP (SSE frames released by the test) on virtual time:
 * the hedge goes out at its delay and wins or is cancelled, the loser's permit goes back
 * unrecorded, and no hedge goes where it must not (budget spent, breaker open, scope
 * gated, the same failure domain, a deadline too short, a first element already come).
 * One test on the system clock.
 */
class HedgedStreamTests {

	private static final Duration DELAY = Duration.ofSeconds(1);

	private final EngineHarness h = new EngineHarness();

	/** The meters of calls, among the call's observers. */
	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	/** What the call's observers heard, in order. */
	private final List<String> told = new CopyOnWriteArrayList<>();

	@AfterEach
	void close() {
		this.h.close();
	}

	@Test
	void aHedgeSentAtTheDelayWinsWithTheEarlierFirstTokenAndThePrimarysPermitGoesBack() {
		Stream silent = new Stream();
		this.h.provider.script("primary", (n) -> (n <= 2) ? Reply.json(503, FakeProviderBodies.SERVER_ERROR)
				: (n == 3) ? Reply.stream(silent) : Reply.stream(answer("primary again")));
		this.h.provider.always("secondary", Reply.stream(answer("from secondary")));
		build((builder) -> builder.breaker(new BreakerSettings(2, 2, 50, Duration.ofSeconds(10), 50,
				Duration.ofSeconds(30), Duration.ofMinutes(15), 1)), "primary", "secondary");
		// Two failures open the primary's breaker; after its open time, one trial permit.
		failOnPrimary();
		failOnPrimary();
		this.h.time.advance(Duration.ofSeconds(31));
		this.told.clear();

		Received received = subscribe(this.h.resilience.stream("chat", this::openAiStream));
		soon().until(() -> this.h.provider.requests("primary") == 3);
		assertThat(this.h.resilience.breaker("primary").state()).isEqualTo(CircuitBreaker.State.HALF_OPEN);
		this.h.time.advance(DELAY.minusMillis(1));
		assertThat(this.h.provider.requests("secondary")).isZero();
		this.h.time.advance(Duration.ofMillis(1));
		soon().until(received.done::get);

		assertThat(received.error.get()).isNull();
		assertThat(received.texts()).containsExactly("from secondary");
		assertThat(this.h.provider.lastHeader("secondary", "Idempotency-Key"))
			.isEqualTo(this.h.provider.lastHeader("primary", "Idempotency-Key"))
			.isNotNull();
		assertThat(this.told).containsExactly("hedge sent secondary", "hedge won secondary", "served secondary 1",
				"ended 1000ms");
		assertThat(hedges("sent", "secondary")).isEqualTo(1);
		assertThat(hedges("won", "secondary")).isEqualTo(1);
		assertThat(hedges("cancelled", "secondary")).isZero();
		// Served by the chain's second target: one fallback, as without the hedge.
		assertThat(this.meters.get(LlmCallMetrics.FALLBACKS).tag("target", "secondary").counter().count()).isEqualTo(1);
		// The cancelled trial was neither a success nor a failure: the permit is free for
		// the next call, which closes the breaker.
		assertThat(this.h.resilience.state().target("primary").breaker().bufferedCalls()).isZero();
		Received next = subscribe(this.h.resilience.stream("chat", this::openAiStream));
		soon().until(next.done::get);
		assertThat(next.texts()).containsExactly("primary again");
		assertThat(this.h.provider.requests("primary")).isEqualTo(4);
		assertThat(this.h.resilience.breaker("primary").state()).isEqualTo(CircuitBreaker.State.CLOSED);
	}

	@Test
	void withoutADelayTheHedgeWaitsForThePrimarysMeasuredNinetyFifthPercentileTimeToFirstToken() {
		List<Stream> primaries = new CopyOnWriteArrayList<>();
		this.h.provider.script("primary", (n) -> Reply.stream(primaries.get(n - 1)));
		this.h.provider.always("secondary", Reply.stream(answer("from secondary")));
		build((builder) -> builder.hedging(HedgingSettings.defaults().withEnabled(true)), "primary", "secondary");
		// Twenty streams whose first token comes after 200 ms: the delay is their p95.
		for (int i = 1; i <= HedgingSettings.MIN_SAMPLES; i++) {
			Stream primary = new Stream();
			primaries.add(primary);
			int requests = i;
			Received received = subscribe(this.h.resilience.stream("chat", this::openAiStream));
			soon().until(() -> this.h.provider.requests("primary") == requests);
			this.h.time.advance(Duration.ofMillis(200));
			primary.send(openAi("quick")).send(openAiDone()).end();
			soon().until(received.done::get);
		}
		assertThat(this.h.provider.requests("secondary")).isZero();
		primaries.add(new Stream());

		Received late = subscribe(this.h.resilience.stream("chat", this::openAiStream));
		soon().until(() -> this.h.provider.requests("primary") == HedgingSettings.MIN_SAMPLES + 1);
		this.h.time.advance(Duration.ofMillis(199));
		assertThat(this.h.provider.requests("secondary")).isZero();
		this.h.time.advance(Duration.ofMillis(1));
		soon().until(late.done::get);
		assertThat(late.texts()).containsExactly("from secondary");
	}

	@Test
	void whenThePrimarysFirstTokenComesFirstTheHedgeIsCancelledUnrecorded() {
		Stream primary = new Stream();
		this.h.provider.always("primary", Reply.stream(primary));
		this.h.provider.always("secondary", Reply.stream(new Stream()));
		build((builder) -> {
		}, "primary", "secondary");

		Received received = subscribe(this.h.resilience.stream("chat", this::openAiStream));
		soon().until(() -> this.h.provider.requests("primary") == 1);
		this.h.time.advance(DELAY);
		soon().until(() -> this.h.provider.requests("secondary") == 1);
		this.h.time.advance(Duration.ofMillis(500));
		primary.send(openAi("from primary")).send(openAiDone()).end();
		soon().until(received.done::get);

		assertThat(received.error.get()).isNull();
		assertThat(received.texts()).containsExactly("from primary");
		assertThat(this.told).containsExactly("hedge sent secondary", "hedge cancelled secondary", "served primary 0",
				"ended 1500ms");
		assertThat(hedges("sent", "secondary")).isEqualTo(1);
		assertThat(hedges("cancelled", "secondary")).isEqualTo(1);
		assertThat(hedges("won", "secondary")).isZero();
		assertThat(this.meters.find(LlmCallMetrics.FALLBACKS).counter()).isNull();
		assertThat(this.h.resilience.state().target("secondary").breaker().bufferedCalls()).isZero();
		assertThat(this.h.resilience.state().target("primary").breaker().successfulCalls()).isEqualTo(1);
	}

	@Test
	void noHedgeOnceTheBudgetIsSpent() {
		List<Stream> primaries = List.of(new Stream(), new Stream());
		this.h.provider.script("primary", (n) -> Reply.stream(primaries.get(n - 1)));
		this.h.provider.always("secondary", Reply.stream(answer("from secondary")));
		build((builder) -> {
		}, "primary", "secondary");

		Received first = subscribe(this.h.resilience.stream("chat", this::openAiStream));
		soon().until(() -> this.h.provider.requests("primary") == 1);
		this.h.time.advance(DELAY);
		soon().until(first.done::get);
		assertThat(first.texts()).containsExactly("from secondary");

		// Two streams in the window: 5 % of them is none, the minimum of one is taken.
		Received second = subscribe(this.h.resilience.stream("chat", this::openAiStream));
		soon().until(() -> this.h.provider.requests("primary") == 2);
		this.h.time.advance(DELAY.multipliedBy(2));
		assertThat(this.h.provider.requests("secondary")).isEqualTo(1);
		primaries.get(1).send(openAi("from primary")).send(openAiDone()).end();
		soon().until(second.done::get);
		assertThat(second.texts()).containsExactly("from primary");
		assertThat(this.told).filteredOn((line) -> line.startsWith("hedge sent")).hasSize(1);
	}

	@Test
	void noHedgeWhenTheLateTargetsRetryBudgetIsSpent() {
		Stream primary = new Stream();
		this.h.provider.always("primary", Reply.stream(primary));
		this.h.provider.always("secondary", Reply.stream(answer("from secondary")));
		// No retries at all: the late attempt's target has no retry to give a hedge.
		build((builder) -> builder.retry(
				new RetrySettings(1, Duration.ofMillis(500), Duration.ofSeconds(30), 0.0, Duration.ofSeconds(10), 0)),
				"primary", "secondary");

		Received received = subscribe(this.h.resilience.stream("chat", this::openAiStream));
		soon().until(() -> this.h.provider.requests("primary") == 1);
		this.h.time.advance(DELAY.multipliedBy(2));
		assertThat(this.h.provider.requests("secondary")).isZero();
		primary.send(openAi("from primary")).send(openAiDone()).end();
		soon().until(received.done::get);
		assertThat(received.texts()).containsExactly("from primary");
	}

	@Test
	void noHedgeIntoAnOpenBreaker() {
		Stream primary = new Stream();
		this.h.provider.always("primary", Reply.stream(primary));
		this.h.provider.always("secondary", Reply.stream(answer("from secondary")));
		build((builder) -> {
		}, "primary", "secondary");
		this.h.resilience.operator().forceOpen("secondary");

		assertNoHedge(primary, "secondary");
	}

	@Test
	void noHedgeIntoAGatedQuotaScope() {
		Stream primary = new Stream();
		this.h.provider.always("primary", Reply.stream(primary));
		this.h.provider.script("secondary",
				(n) -> (n == 1)
						? Reply.json(429, Map.of("retry-after", "60"),
								EngineHarness.fixture("openai-429-tpm-rate-limit"))
						: Reply.stream(answer("from secondary")));
		build((builder) -> {
		}, "primary", "secondary");
		try {
			this.h.time.await(this.h.resilience.executeOnTarget("secondary",
					CallOptions.deadline(Duration.ofSeconds(1)), this.h::webClientCall), this.h.inFlight::get);
		}
		catch (RuntimeException expected) {
			// Rate limited: the scope is gated for a minute, longer than the call waits.
		}
		assertThat(this.h.resilience.isUsable("secondary")).isFalse();

		assertNoHedge(primary, "secondary");
		assertThat(this.h.provider.requests("secondary")).isEqualTo(1);
	}

	@Test
	void theHedgeGoesToAnotherFailureDomainNeverToTheSameOne() {
		Stream primary = new Stream();
		this.h.provider.always("primary", Reply.stream(primary));
		this.h.provider.always("twin", Reply.stream(answer("from twin")));
		this.h.provider.always("secondary", Reply.stream(answer("from secondary")));
		Target twin = new Target("twin", "openai", "twin", "gpt-4o", "region-primary",
				URI.create(this.h.provider.baseUrl("twin")), null);
		this.h.build(List.of(this.h.target("primary", "primary"), twin, this.h.target("secondary", "secondary")),
				(builder) -> configure(builder));

		Received received = subscribe(this.h.resilience.stream("chat", this::openAiStream));
		soon().until(() -> this.h.provider.requests("primary") == 1);
		this.h.time.advance(DELAY);
		soon().until(received.done::get);

		assertThat(received.texts()).containsExactly("from secondary");
		assertThat(this.h.provider.requests("twin")).isZero();
	}

	@Test
	void aChainOfOneFailureDomainIsNeverHedged() {
		Stream primary = new Stream();
		this.h.provider.always("primary", Reply.stream(primary));
		this.h.provider.always("twin", Reply.stream(answer("from twin")));
		Target twin = new Target("twin", "openai", "twin", "gpt-4o", "region-primary",
				URI.create(this.h.provider.baseUrl("twin")), null);
		this.h.build(List.of(this.h.target("primary", "primary"), twin), (builder) -> configure(builder));

		assertNoHedge(primary, "twin");
	}

	@Test
	void noHedgeWhenTheDeadlineCannotHoldAWholeAttemptOnTheHedgeTarget() {
		Stream primary = new Stream();
		this.h.provider.always("primary", Reply.stream(primary));
		this.h.provider.always("secondary", Reply.stream(answer("from secondary")));
		build((builder) -> {
		}, "primary", "secondary");

		// At the delay 2 s are left, and the secondary's first token may take 5 s.
		Received received = subscribe(
				this.h.resilience.stream("chat", CallOptions.deadline(Duration.ofSeconds(3)), this::openAiStream));
		soon().until(() -> this.h.provider.requests("primary") == 1);
		this.h.time.advance(DELAY.multipliedBy(2));
		assertThat(this.h.provider.requests("secondary")).isZero();
		primary.send(openAi("from primary")).send(openAiDone()).end();
		soon().until(received.done::get);
		assertThat(received.texts()).containsExactly("from primary");
		assertThat(this.told).noneMatch((line) -> line.startsWith("hedge"));
	}

	@Test
	void noHedgeAfterTheFirstToken() {
		Stream primary = new Stream().send(openAi("first"));
		this.h.provider.always("primary", Reply.stream(primary));
		this.h.provider.always("secondary", Reply.stream(answer("from secondary")));
		build((builder) -> {
		}, "primary", "secondary");

		Received received = subscribe(this.h.resilience.stream("chat", this::openAiStream));
		soon().until(() -> received.items.size() == 1);
		this.h.time.advance(DELAY.multipliedBy(3));
		assertThat(this.h.provider.requests("secondary")).isZero();
		primary.send(openAi(" then more")).send(openAiDone()).end();
		soon().until(received.done::get);
		assertThat(received.texts()).containsExactly("first", " then more");
		assertThat(this.told).noneMatch((line) -> line.startsWith("hedge"));
	}

	@Test
	void aPrimaryWalkThatFailsWhileTheHedgeIsInFlightLeavesTheCallToTheHedgeAndIsNotCountedUnavailable() {
		Stream hedge = new Stream();
		this.h.provider.always("primary", Reply.stream(new Stream()));
		// The hedge's request, then the primary walk's failover after its first-token
		// timeout, refused.
		this.h.provider.script("secondary",
				(n) -> (n == 1) ? Reply.stream(hedge) : Reply.json(503, FakeProviderBodies.SERVER_ERROR));
		build((builder) -> {
		}, "primary", "secondary");

		Received received = subscribe(this.h.resilience.stream("chat", this::openAiStream));
		soon().until(() -> this.h.provider.requests("primary") == 1);
		this.h.time.advance(DELAY);
		soon().until(() -> this.h.provider.requests("secondary") == 1);
		this.h.time.advance(Duration.ofSeconds(4));
		soon().until(() -> this.told.contains("attempt secondary AVAILABILITY"));
		assertThat(received.done.get()).isFalse();
		hedge.send(openAi("from the hedge")).send(openAiDone()).end();
		soon().until(received.done::get);

		assertThat(received.error.get()).isNull();
		assertThat(received.texts()).containsExactly("from the hedge");
		assertThat(this.told).noneMatch((line) -> line.startsWith("unavailable"))
			.containsSubsequence("hedge sent secondary", "hedge won secondary", "served secondary 1", "ended 5000ms")
			.filteredOn((line) -> line.startsWith("ended"))
			.hasSize(1);
	}

	@Test
	void whenBothWalksFailTheCallFailsWithThePrimarysErrorToldOnce() {
		this.h.provider.always("primary", Reply.stream(new Stream()));
		// The hedge's request stays silent; the primary walk's failover is refused.
		this.h.provider.script("secondary",
				(n) -> (n == 1) ? Reply.stream(new Stream()) : Reply.json(503, FakeProviderBodies.SERVER_ERROR));
		build((builder) -> {
		}, "primary", "secondary");

		Received received = subscribe(this.h.resilience.stream("chat", this::openAiStream));
		soon().until(() -> this.h.provider.requests("primary") == 1);
		this.h.time.advance(DELAY);
		soon().until(() -> this.h.provider.requests("secondary") == 1);
		this.h.time.advance(Duration.ofSeconds(4));
		soon().until(() -> this.told.contains("attempt secondary AVAILABILITY"));
		assertThat(received.done.get()).isFalse();
		// The hedge's first-token timeout: 5 s after it went out.
		this.h.time.advance(DELAY);
		soon().until(received.done::get);

		assertThat(received.error.get()).isInstanceOfSatisfying(LlmUnavailableException.class,
				(unavailable) -> assertThat(unavailable.getMessage()).contains("chat"));
		assertThat(this.told).filteredOn((line) -> line.equals("unavailable")).hasSize(1);
		assertThat(this.told).filteredOn((line) -> line.startsWith("ended")).containsExactly("ended 5000ms");
		assertThat(this.told).noneMatch((line) -> line.startsWith("served"));
	}

	@Test
	void aHedgeThatFailsLeavesTheCallToThePrimary() {
		Stream primary = new Stream();
		this.h.provider.always("primary", Reply.stream(primary));
		this.h.provider.always("secondary", Reply.json(503, FakeProviderBodies.SERVER_ERROR));
		build((builder) -> {
		}, "primary", "secondary");

		Received received = subscribe(this.h.resilience.stream("chat", this::openAiStream));
		soon().until(() -> this.h.provider.requests("primary") == 1);
		this.h.time.advance(DELAY);
		soon().until(() -> this.told.contains("attempt secondary AVAILABILITY"));
		this.h.time.advance(DELAY);
		primary.send(openAi("from primary")).send(openAiDone()).end();
		soon().until(received.done::get);

		assertThat(received.error.get()).isNull();
		assertThat(received.texts()).containsExactly("from primary");
		// The hedge's failure reaches the race a moment after its verdict is told: a
		// first
		// token of the primary's in that moment finds the hedge still in flight and
		// counts
		// it cancelled.
		assertThat(this.told)
			.containsSubsequence("hedge sent secondary", "attempt secondary AVAILABILITY", "served primary 0",
					"ended 2000ms")
			.doesNotContain("hedge won secondary")
			.filteredOn((line) -> line.startsWith("served") || line.startsWith("ended"))
			.hasSize(2);
	}

	@Test
	void onTheSystemClockAHedgeSentAfterItsDelayServesASilentPrimarysStream() {
		try (FakeProvider provider = new FakeProvider(); RealClockCallers real = new RealClockCallers()) {
			provider.always("primary", Reply.stream(new Stream()));
			provider.always("secondary", Reply.stream(answer("from secondary")));
			WebClient client = WebClient.create();
			List<String> results = new CopyOnWriteArrayList<>();
			LlmResilience resilience = LlmResilience.builder()
				.clock(Clock.systemUTC())
				.scheduler(real.timer)
				.extractors(ErrorExtractors.standard().with(List.of(new WebClientErrorExtractor())))
				.target(new Target("primary", "openai", "primary", "gpt-4o", "eu",
						URI.create(provider.baseUrl("primary")), null))
				.target(new Target("secondary", "openai", "secondary", "gpt-4o", "us",
						URI.create(provider.baseUrl("secondary")), null))
				.chain("chat", "primary", "secondary")
				.hedging(HedgingSettings.defaults().withEnabled(true).withDelay(Duration.ofMillis(200)))
				.observer(new CallObserver() {
					@Override
					public void onHedge(String chain, Target target, HedgeResult result) {
						results.add(result.name());
					}
				})
				.build();

			long start = System.nanoTime();
			AtomicLong firstNanos = new AtomicLong();
			List<String> texts = resilience
				.stream("chat",
						(attempt) -> OpenAiChatStream.chunks(client.post()
							.uri(attempt.target().baseUrl() + "/v1/chat/completions")
							.accept(MediaType.TEXT_EVENT_STREAM)
							.bodyValue("{\"stream\":true}")
							.retrieve()
							.bodyToFlux(OpenAiChatStream.EVENTS)))
				.doOnNext((chunk) -> firstNanos.compareAndSet(0, System.nanoTime() - start))
				.map(StreamChunk::text)
				.filter((text) -> !text.isEmpty())
				.collectList()
				.block(Duration.ofSeconds(10));

			assertThat(texts).containsExactly("from secondary");
			assertThat(Duration.ofNanos(firstNanos.get())).isBetween(Duration.ofMillis(190), Duration.ofSeconds(3));
			assertThat(results).containsExactly("SENT", "WON");
			assertThat(resilience.state().target("primary").breaker().bufferedCalls()).isZero();
		}
	}

	/** The count of {@code llm.resilience.hedges} of that result and target. */
	private double hedges(String result, String target) {
		Counter counter = this.meters.find(LlmCallMetrics.HEDGES)
			.tags("chain", "chat", "target", target, "provider", "openai", "model", "gpt-4o", "region",
					"region-" + target, "result", result)
			.counter();
		return (counter != null) ? counter.count() : 0;
	}

	/** The primary stays silent past the delay; no hedge goes out; then it answers. */
	private void assertNoHedge(Stream primary, String other) {
		int before = this.h.provider.requests(other);
		Received received = subscribe(this.h.resilience.stream("chat", this::openAiStream));
		soon().until(() -> this.h.provider.requests("primary") == 1);
		this.h.time.advance(DELAY.multipliedBy(2));
		assertThat(this.h.provider.requests(other)).isEqualTo(before);
		primary.send(openAi("from primary")).send(openAiDone()).end();
		soon().until(received.done::get);
		assertThat(received.texts()).containsExactly("from primary");
		assertThat(this.told).noneMatch((line) -> line.startsWith("hedge"));
	}

	private void failOnPrimary() {
		try {
			this.h.time.await(this.h.resilience.executeOnTarget("primary", CallOptions.NONE, this.h::webClientCall),
					this.h.inFlight::get);
		}
		catch (RuntimeException expected) {
			// A 503: a failure on the primary's breaker.
		}
	}

	private void build(java.util.function.Consumer<LlmResilienceBuilder> customizer, String... targets) {
		this.h.build((builder) -> {
			configure(builder);
			customizer.accept(builder);
		}, targets);
	}

	/**
	 * Hedges after a second, 5 s to the first token, one attempt per target, and what the
	 * call's observers hear.
	 */
	private void configure(LlmResilienceBuilder builder) {
		builder.hedging(HedgingSettings.defaults().withEnabled(true).withDelay(DELAY))
			.timeouts(new TimeoutSettings(Duration.ofSeconds(30), Duration.ofSeconds(5), Duration.ofSeconds(10),
					AdaptiveSettings.disabled()))
			.retry(new RetrySettings(1, Duration.ofMillis(500), Duration.ofSeconds(30), 0.1, Duration.ofSeconds(10), 3))
			.observer(CallObserver.of(List.of(new LlmCallMetrics(this.meters), new CallObserver() {

				@Override
				public void onHedge(String chain, Target target, HedgeResult result) {
					HedgedStreamTests.this.told.add("hedge " + result.name().toLowerCase() + " " + target.name());
				}

				@Override
				public void onAttempt(String chain, Target target, Verdict verdict, long nanos) {
					if (verdict.outcome() != io.github.llmresilience.classify.Outcome.SUCCESS) {
						HedgedStreamTests.this.told.add("attempt " + target.name() + " " + verdict.outcome());
					}
				}

				@Override
				public void onServed(String chain, Target target, int position, long nanos) {
					HedgedStreamTests.this.told.add("served " + target.name() + " " + position);
				}

				@Override
				public void onUnavailable(String chain, LlmUnavailableException exception, long nanos) {
					HedgedStreamTests.this.told.add("unavailable");
				}

				@Override
				public void onCallEnded(String chain, long nanos, long backoffNanos) {
					HedgedStreamTests.this.told.add("ended " + TimeUnit.NANOSECONDS.toMillis(nanos) + "ms");
				}

			})));
	}

	/** Awaitility polling fast: the test waits for real I/O of a few milliseconds. */
	private static org.awaitility.core.ConditionFactory soon() {
		return await().atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1));
	}

	private Flux<StreamChunk> openAiStream(Attempt attempt) {
		return OpenAiChatStream.chunks(this.h.webClient.post()
			.uri(attempt.target().baseUrl() + "/v1/chat/completions")
			.header("Idempotency-Key", attempt.idempotencyKey())
			.accept(MediaType.TEXT_EVENT_STREAM)
			.bodyValue("{\"stream\":true}")
			.retrieve()
			.bodyToFlux(OpenAiChatStream.EVENTS));
	}

	private static Stream answer(String text) {
		return new Stream().send(openAi(text)).send(openAiDone()).end();
	}

	private static String openAi(String text) {
		return "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + text
				+ "\"},\"finish_reason\":null}]}\n\n";
	}

	private static String openAiDone() {
		return "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
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
			return this.items.stream().map(StreamChunk::text).filter((text) -> !text.isEmpty()).toList();
		}

	}

}
