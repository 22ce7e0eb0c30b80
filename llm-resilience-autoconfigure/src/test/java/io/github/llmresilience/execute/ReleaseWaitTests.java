package io.github.llmresilience.execute;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.llmresilience.extract.ErrorExtractors;
import io.github.llmresilience.metrics.LlmCallMetrics;
import io.github.llmresilience.metrics.LlmResilienceStateMetrics;
import io.github.llmresilience.pool.PartitionSettings;
import io.github.llmresilience.pool.PoolSettings;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import io.github.llmresilience.web.WebClientErrorExtractor;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * When every target of a chain is only rate limited, a call waits for the earliest
 * release within its pool's {@code max-wait} and its deadline, instead of failing: pools
 * off (the default), against a real HTTP provider, on virtual time.
 */
class ReleaseWaitTests {

	private static final String RATE_LIMIT = EngineHarness.fixture("openai-429-tpm-rate-limit");

	private final EngineHarness h = new EngineHarness();

	@AfterEach
	void close() {
		this.h.close();
	}

	/** 429 with {@code retry-after: 2} until {@code until} has passed, then answers. */
	private void throttledUntil(Duration until) {
		this.h.provider.script("primary", (n) -> (this.h.time.elapsed().compareTo(until) < 0)
				? Reply.json(429, Map.of("retry-after", "2"), RATE_LIMIT) : Reply.ok(FakeProviderBodies.OK));
	}

	/** Thirty calls, one every 100 ms: how many were served and how many failed. */
	private int[] thirtyCalls(CallOptions options) {
		AtomicInteger served = new AtomicInteger();
		AtomicInteger unavailable = new AtomicInteger();
		List<Mono<Void>> calls = new ArrayList<>();
		for (int i = 0; i < 30; i++) {
			calls.add(Mono.delay(Duration.ofMillis(100L * i), this.h.time)
				.then(this.h.resilience.execute("chat", options, this.h::webClientCall))
				.doOnNext((body) -> served.incrementAndGet())
				.onErrorResume(LlmUnavailableException.class, (ex) -> {
					unavailable.incrementAndGet();
					return Mono.empty();
				})
				.then());
		}
		this.h.time.await(Flux.merge(calls).then(Mono.just(true)), this.h.inFlight::get);
		return new int[] { served.get(), unavailable.get() };
	}

	@Test
	void thirtyCallsAgainstALoneTargetAnswering429RetryAfter2AreAllServed() {
		throttledUntil(Duration.ofSeconds(2));
		this.h.build((builder) -> {
		}, "primary");

		int[] result = thirtyCalls(CallOptions.NONE);

		assertThat(result[0]).isEqualTo(30);
		assertThat(result[1]).isZero();
		// The gate held every call that came while it was closed: the provider saw the
		// first 429 and the 30 answers.
		assertThat(this.h.provider.requests("primary")).isEqualTo(31);
		assertThat(this.h.resilience.pools().queued()).containsEntry(PoolSettings.INTERACTIVE, 0);
	}

	/**
	 * Twenty calls 50 ms apart, the first of which meets {@code 429, retry-after: 1}: all
	 * wait for the gate; every answer after it takes {@code latency}. How many were
	 * served and how many failed.
	 */
	private int[] twentyWaitingCalls(Duration latency) {
		this.h.provider.script("primary", (n) -> (n == 1) ? Reply.json(429, Map.of("retry-after", "1"), RATE_LIMIT)
				: Reply.ok(FakeProviderBodies.OK));
		this.h.build((builder) -> {
		}, "primary");
		AtomicInteger served = new AtomicInteger();
		AtomicInteger unavailable = new AtomicInteger();
		List<Mono<Void>> calls = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			calls.add(Mono.delay(Duration.ofMillis(50L * i), this.h.time)
				.then(this.h.resilience.execute("chat",
						(attempt) -> this.h.webClientCall(attempt).delayElement(latency, this.h.time)))
				.doOnNext((body) -> served.incrementAndGet())
				.onErrorResume(LlmUnavailableException.class, (ex) -> {
					unavailable.incrementAndGet();
					return Mono.empty();
				})
				.then());
		}
		this.h.time.await(Flux.merge(calls).then(Mono.just(true)), this.h.inFlight::get);
		return new int[] { served.get(), unavailable.get() };
	}

	@ParameterizedTest
	@ValueSource(ints = { 1, 3, 5 })
	void callsWaitingForAGateAreServedWhenTheProvidersAnswersAreSlow(int seconds) {
		int[] result = twentyWaitingCalls(Duration.ofSeconds(seconds));

		assertThat(result[1]).isZero();
		assertThat(result[0]).isEqualTo(20);
		// The first 429 and one request for each call: the provider had room.
		assertThat(this.h.provider.requests("primary")).isEqualTo(21);
		assertThat(this.h.resilience.pools().queued()).containsEntry(PoolSettings.INTERACTIVE, 0);
	}

	@Test
	void aLimitThatOutlastsTheInteractiveMaxWaitIsWaitedOutWhenNothingElseCanServe() {
		// Limited for 3 s, beyond interactive's 2 s: a call that meets the limit again
		// waits again, within its deadline.
		throttledUntil(Duration.ofSeconds(3));
		this.h.build((builder) -> {
		}, "primary");

		int[] result = thirtyCalls(CallOptions.NONE);

		assertThat(result[0]).isEqualTo(30);
		assertThat(result[1]).isZero();
		assertThat(this.h.resilience.pools().queued()).containsEntry(PoolSettings.INTERACTIVE, 0);
	}

	/**
	 * The provider of the side-by-side measurement: {@code 429, retry-after: 2} for its
	 * first 5 s, then answers; each request's time and status kept.
	 */
	private List<Duration[]> limitedForFiveSeconds() {
		List<Duration[]> requests = new CopyOnWriteArrayList<>();
		this.h.provider.script("primary", (n) -> {
			Duration at = this.h.time.elapsed();
			boolean limited = at.compareTo(Duration.ofSeconds(5)) < 0;
			requests.add(new Duration[] { at, limited ? Duration.ofSeconds(2) : Duration.ZERO });
			return limited ? Reply.json(429, Map.of("retry-after", "2"), RATE_LIMIT) : Reply.ok(FakeProviderBodies.OK);
		});
		this.h.build((builder) -> {
		}, "primary");
		return requests;
	}

	/** No request reached the provider before the Retry-After of a 429 it sent ended. */
	private static void noRequestBeforeARetryAfterEnds(List<Duration[]> requests) {
		for (Duration[] refused : requests) {
			if (refused[1].isZero()) {
				continue;
			}
			Duration until = refused[0].plus(refused[1]);
			assertThat(requests).noneSatisfy(
					(request) -> assertThat(request[0]).isGreaterThan(refused[0]).isLessThan(until.minusMillis(1)));
		}
	}

	@Test
	void aSingleCallAgainstALimitThatLiftsWithinItsDeadlineIsServedWithNoMoreRequestsThanTheSdksRetries() {
		List<Duration[]> requests = limitedForFiveSeconds();

		assertThat(this.h.chat()).isEqualTo(FakeProviderBodies.OK);

		// At 0, 2 and 4 s: 429; at 6 s: the answer. Plain Spring AI (its SDK waiting and
		// retrying) served the same call at 6.0 s with 4 requests.
		assertThat(requests).extracting((request) -> request[0].toMillis()).containsExactly(0L, 2000L, 4000L, 6000L);
		assertThat(this.h.time.elapsed()).isEqualTo(Duration.ofSeconds(6));
		noRequestBeforeARetryAfterEnds(requests);
	}

	@Test
	void aBurstOfThirtyCallsAgainstALimitThatLiftsWithinTheirDeadlineIsServedWhole() {
		List<Duration[]> requests = limitedForFiveSeconds();
		AtomicInteger served = new AtomicInteger();
		List<Mono<String>> burst = new ArrayList<>();
		for (int i = 0; i < 30; i++) {
			burst.add(this.h.resilience.execute("chat", this.h::webClientCall)
				.doOnNext((body) -> served.incrementAndGet()));
		}

		this.h.time.await(Flux.merge(burst).then(Mono.just(true)), this.h.inFlight::get);

		assertThat(served.get()).isEqualTo(30);
		noRequestBeforeARetryAfterEnds(requests);
		// The burst's first requests go out together, before the first 429 is back (as
		// plain Spring AI's do); from then on the gate holds every call, and one
		// request looks at each later window (2 s and 4 s); then one per call.
		long refused = requests.stream().filter((request) -> !request[1].isZero()).count();
		long refusedLater = requests.stream()
			.filter((request) -> !request[1].isZero() && request[0].compareTo(Duration.ZERO) > 0)
			.count();
		assertThat(refused - refusedLater).isBetween(1L, 30L);
		assertThat(refusedLater).isBetween(1L, 2L);
		assertThat(requests).hasSize(30 + (int) refused);
	}

	@Test
	void withoutWaitingTheSameCallsFailAtOnceWhileTheScopeIsGated() {
		throttledUntil(Duration.ofSeconds(2));
		this.h.build((builder) -> builder.pools(noWait()), "primary");

		int[] result = thirtyCalls(CallOptions.NONE);

		assertThat(result[1]).isPositive();
		assertThat(result[0] + result[1]).isEqualTo(30);
	}

	@Test
	void aReleaseBeyondTheCallsWaitingTimeFailsAtOnceWithTheTimeToComeBack() {
		// timeouts.call (60 s) is as long as a call that names no deadline waits.
		this.h.provider.always("primary", Reply.json(429, Map.of("retry-after", "90"), RATE_LIMIT));
		this.h.build((builder) -> {
		}, "primary");
		Instant start = this.h.time.instant();

		LlmUnavailableException unavailable = (LlmUnavailableException) this.h.chatFailure();

		assertThat(this.h.time.instant()).isEqualTo(start);
		assertThat(unavailable.allThrottled()).isTrue();
		assertThat(unavailable.retryAfter()).isEqualTo(start.plusSeconds(90));
		assertThat(this.h.provider.requests("primary")).isEqualTo(1);
	}

	@Test
	void aBackgroundCallWaitsForTheReleaseToo() {
		this.h.provider.script("primary", (n) -> (n == 1) ? Reply.json(429, Map.of("retry-after", "5"), RATE_LIMIT)
				: Reply.ok(FakeProviderBodies.OK));
		this.h.build((builder) -> {
		}, "primary");
		Instant start = this.h.time.instant();

		assertThat(this.h.chat(CallOptions.pool(PoolSettings.BACKGROUND))).isEqualTo(FakeProviderBodies.OK);

		assertThat(Duration.between(start, this.h.time.instant())).isGreaterThanOrEqualTo(Duration.ofSeconds(5));
		assertThat(this.h.provider.requests("primary")).isEqualTo(2);
	}

	@Test
	void aWaitThatCannotEndBeforeTheDeadlineFailsAtOnce() {
		this.h.provider.script("primary", (n) -> (n == 1) ? Reply.json(429, Map.of("retry-after", "5"), RATE_LIMIT)
				: Reply.ok(FakeProviderBodies.OK));
		this.h.build((builder) -> {
		}, "primary");
		Instant start = this.h.time.instant();

		LlmUnavailableException unavailable = (LlmUnavailableException) this.h
			.chatFailure(CallOptions.pool(PoolSettings.BACKGROUND).withDeadline(Duration.ofSeconds(3)));

		assertThat(this.h.time.instant()).isEqualTo(start);
		assertThat(unavailable.retryAfter()).isEqualTo(start.plusSeconds(5));
		assertThat(this.h.provider.requests("primary")).isEqualTo(1);
	}

	@Test
	void aWaitThatWouldLeaveTheAttemptAfterItLessThanAttemptsTakeFailsAtOnce() {
		this.h.provider.script("primary", (n) -> (n == 2) ? Reply.json(429, Map.of("retry-after", "3"), RATE_LIMIT)
				: Reply.ok(FakeProviderBodies.OK));
		this.h.build((builder) -> {
		}, "primary");
		// Answers take a second.
		TargetCall<String> slow = (attempt) -> this.h.webClientCall(attempt)
			.delayElement(Duration.ofSeconds(1), this.h.time);
		this.h.time.await(this.h.resilience.execute("chat", slow), this.h.inFlight::get);
		Instant start = this.h.time.instant();

		// Released at 3 s, the attempt would have 0.5 s before the deadline, half of what
		// attempts take: it would only time out there (and count against the provider).
		Throwable failure = this.h.time
			.await(this.h.resilience.execute("chat", CallOptions.deadline(Duration.ofMillis(3500)), slow)
				.map((body) -> (Throwable) new AssertionError("served: " + body))
				.onErrorResume((ex) -> Mono.just(ex)), this.h.inFlight::get);

		assertThat(failure).isInstanceOfSatisfying(LlmUnavailableException.class, (unavailable) -> {
			assertThat(unavailable.allThrottled()).isTrue();
			assertThat(unavailable.retryAfter()).isEqualTo(start.plusSeconds(3));
		});
		assertThat(this.h.time.instant()).isEqualTo(start);
		// With room for the attempt after the release, the call waits for it.
		assertThat(this.h.time.await(
				this.h.resilience.execute("chat", CallOptions.deadline(Duration.ofMillis(4500)), slow),
				this.h.inFlight::get))
			.isEqualTo(FakeProviderBodies.OK);
		assertThat(this.h.provider.requests("primary")).isEqualTo(3);
	}

	@Test
	void callsBeyondThePoolsQueueBoundFailAtOnceAndTheOthersAreServedAfterTheRelease() {
		this.h.provider.script("primary", (n) -> (n == 1) ? Reply.json(429, Map.of("retry-after", "1"), RATE_LIMIT)
				: Reply.ok(FakeProviderBodies.OK));
		this.h.build((builder) -> builder.pools(new PartitionSettings(false,
				List.of(new PoolSettings(PoolSettings.INTERACTIVE, 100, Duration.ofSeconds(2), 2)), Map.of(), true)),
				"primary");
		AtomicInteger served = new AtomicInteger();
		AtomicInteger unavailable = new AtomicInteger();
		// The first call meets the 429; four more come while the scope is gated.
		List<Mono<Void>> calls = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			calls.add(Mono.delay(Duration.ofMillis(100L * i), this.h.time)
				.then(this.h.resilience.execute("chat", this.h::webClientCall))
				.doOnNext((body) -> served.incrementAndGet())
				.onErrorResume(LlmUnavailableException.class, (ex) -> {
					unavailable.incrementAndGet();
					return Mono.empty();
				})
				.then());
		}

		this.h.time.await(Flux.merge(calls).then(Mono.just(true)), this.h.inFlight::get);

		assertThat(served.get()).isEqualTo(2);
		assertThat(unavailable.get()).isEqualTo(3);
		assertThat(this.h.resilience.pools().queued()).containsEntry(PoolSettings.INTERACTIVE, 0);
	}

	@Test
	void eachWaitIsTimedByPoolAndTheQueueIsAGauge() {
		this.h.provider.script("primary", (n) -> (n == 1) ? Reply.json(429, Map.of("retry-after", "1"), RATE_LIMIT)
				: Reply.ok(FakeProviderBodies.OK));
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		this.h.build((builder) -> builder.observer(new LlmCallMetrics(registry)), "primary");
		new LlmResilienceStateMetrics(this.h.resilience).bindTo(registry);

		this.h.chat(CallOptions.pool(PoolSettings.BACKGROUND));

		Timer waits = registry.get(LlmCallMetrics.POOL_WAITS).tags("chain", "chat", "pool", "background").timer();
		assertThat(waits.count()).isEqualTo(1);
		assertThat(waits.totalTime(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(1000);
		assertThat(registry.get(LlmResilienceStateMetrics.POOL_QUEUED).tags("pool", "background").gauge().value())
			.isZero();
	}

	@Test
	void aBlockingCallWaitsOnItsOwnThread() {
		this.h.provider.script("primary", (n) -> (n == 1) ? Reply.json(429, Map.of("retry-after", "1"), RATE_LIMIT)
				: Reply.ok(FakeProviderBodies.OK));
		this.h.build((builder) -> {
		}, "primary");
		Instant start = this.h.time.instant();

		assertThat(this.h.chatBlocking()).isEqualTo(FakeProviderBodies.OK);

		assertThat(Duration.between(start, this.h.time.instant())).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
		assertThat(this.h.provider.requests("primary")).isEqualTo(2);
	}

	@Test
	void aStreamWaitsForTheReleaseBeforeItsFirstElement() {
		this.h.provider.script("primary", (n) -> (n == 1) ? Reply.json(429, Map.of("retry-after", "1"), RATE_LIMIT)
				: Reply.ok(FakeProviderBodies.OK));
		this.h.build((builder) -> {
		}, "primary");
		Instant start = this.h.time.instant();

		List<String> elements = this.h.time.await(
				this.h.resilience.stream("chat", (attempt) -> this.h.webClientCall(attempt).flux()).collectList(),
				this.h.inFlight::get);

		assertThat(elements).containsExactly(FakeProviderBodies.OK);
		assertThat(Duration.between(start, this.h.time.instant())).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
		assertThat(this.h.provider.requests("primary")).isEqualTo(2);
	}

	@Test
	void withPoolsOnABlockingCallWaitsOnItsOwnThreadForItsShareToRefill() {
		this.h.provider.always("primary", Reply.ok(FakeProviderBodies.OK));
		this.h.build((builder) -> builder.pools(new PartitionSettings(true, PartitionSettings.defaultPools(),
				Map.of("primary/gpt-4o", new io.github.llmresilience.pool.Capacity(60, 0)), true)), "primary");
		// The whole scope: no other pool asks.
		List<Mono<String>> burst = new ArrayList<>();
		for (int i = 0; i < 60; i++) {
			burst.add(this.h.resilience.execute("chat", this.h::webClientCall));
		}
		this.h.time.await(Flux.merge(burst).then(Mono.just(true)), this.h.inFlight::get);
		Instant start = this.h.time.instant();

		assertThat(this.h.chatBlocking()).isEqualTo(FakeProviderBodies.OK);

		// The scope refills one request a second.
		assertThat(Duration.between(start, this.h.time.instant())).isEqualTo(Duration.ofSeconds(1));
		assertThat(this.h.provider.requests("primary")).isEqualTo(61);
	}

	@Test
	void aCallCancelledWhileItWaitsGivesItsPlaceInTheQueueBack() {
		this.h.provider.always("primary", Reply.json(429, Map.of("retry-after", "1"), RATE_LIMIT));
		this.h.build((builder) -> {
		}, "primary");
		CompletableFuture<String> first = new CompletableFuture<>();
		Disposable call = this.h.resilience.execute("chat", this.h::webClientCall)
			.subscribe(first::complete, first::completeExceptionally);
		// Let the 429 arrive and the call start waiting.
		for (int i = 0; i < 500 && this.h.resilience.pools().queued().get(PoolSettings.INTERACTIVE) == 0; i++) {
			this.h.time.await(Mono.delay(Duration.ofMillis(1), this.h.time).thenReturn(true), this.h.inFlight::get);
		}
		assertThat(this.h.resilience.pools().queued()).containsEntry(PoolSettings.INTERACTIVE, 1);

		call.dispose();

		assertThat(this.h.resilience.pools().queued()).containsEntry(PoolSettings.INTERACTIVE, 0);
		assertThat(first).isNotDone();
	}

	@Test
	void anUnknownPoolIsTheCallersMistake() {
		this.h.provider.always("primary", Reply.ok(FakeProviderBodies.OK));
		this.h.build((builder) -> {
		}, "primary");

		assertThatIllegalArgumentException().isThrownBy(() -> this.h.chat(CallOptions.pool("batch")))
			.withMessageContaining("No pool named 'batch'")
			.withMessageContaining("interactive");
		assertThat(this.h.provider.totalRequests()).isZero();
	}

	@Test
	void onTheSystemClockCallsWaitForTheReleaseAndAreServed() {
		try (FakeProvider provider = new FakeProvider()) {
			long start = System.nanoTime();
			provider.script("primary", (n) -> (System.nanoTime() - start < 1_000_000_000L)
					? Reply.json(429, Map.of("retry-after", "1"), RATE_LIMIT) : Reply.ok(FakeProviderBodies.OK));
			LlmResilience resilience = systemClockEngine(provider);
			List<Mono<String>> calls = new ArrayList<>();
			for (int i = 0; i < 10; i++) {
				calls.add(
						Mono.delay(Duration.ofMillis(50L * i)).then(resilience.execute("chat", this.h::webClientCall)));
			}

			List<String> answers = Flux.merge(calls).collectList().block(Duration.ofSeconds(20));

			assertThat(answers).hasSize(10).containsOnly(FakeProviderBodies.OK);
			// At least the provider's second of limiting, far less than a call's
			// deadline.
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofSeconds(1))
				.isLessThan(Duration.ofSeconds(15));
		}
	}

	@Test
	void onTheSystemClockCallsWaitingForAGateAreServedWhileSlowAnswersAreInFlight() {
		try (FakeProvider provider = new FakeProvider()) {
			provider.script("primary", (n) -> (n == 1) ? Reply.json(429, Map.of("retry-after", "1"), RATE_LIMIT)
					: Reply.ok(FakeProviderBodies.OK));
			LlmResilience resilience = systemClockEngine(provider);
			// Answers that take longer than what is left of the calls' 2 s of waiting
			// after the gate's second.
			Duration latency = Duration.ofMillis(600);
			long start = System.nanoTime();
			List<Mono<String>> calls = new ArrayList<>();
			for (int i = 0; i < 10; i++) {
				calls.add(Mono.delay(Duration.ofMillis(50L * i))
					.then(resilience.execute("chat",
							(attempt) -> this.h.webClientCall(attempt).delayElement(latency))));
			}

			List<String> answers = Flux.merge(calls).collectList().block(Duration.ofSeconds(30));

			assertThat(answers).hasSize(10).containsOnly(FakeProviderBodies.OK);
			assertThat(provider.requests("primary")).isEqualTo(11);
			// At least the gate's second and one answer, far less than a call's deadline.
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofSeconds(1))
				.isLessThan(Duration.ofSeconds(25));
		}
	}

	@Test
	void onTheSystemClockASingleCallAndABurstAgainstALimitThatLiftsWithinTheirDeadlineAreServed() {
		try (FakeProvider provider = new FakeProvider()) {
			long start = System.nanoTime();
			List<long[]> requests = new CopyOnWriteArrayList<>();
			provider.script("primary", (n) -> {
				long at = System.nanoTime() - start;
				boolean limited = at < 5_000_000_000L;
				requests.add(new long[] { at, limited ? 2_000_000_000L : 0 });
				return limited ? Reply.json(429, Map.of("retry-after", "2"), RATE_LIMIT)
						: Reply.ok(FakeProviderBodies.OK);
			});
			LlmResilience resilience = systemClockEngine(provider);

			String single = resilience.call("chat", (attempt) -> this.h.webClientCall(attempt).block());
			long servedAt = System.nanoTime() - start;
			List<Mono<String>> burst = new ArrayList<>();
			for (int i = 0; i < 30; i++) {
				burst.add(resilience.execute("chat", this.h::webClientCall));
			}
			List<String> answers = Flux.merge(burst).collectList().block(Duration.ofSeconds(30));

			assertThat(single).isEqualTo(FakeProviderBodies.OK);
			// The limit lifts at 5 s; the call goes when the 429 of 4 s says, at 6 s.
			assertThat(Duration.ofNanos(servedAt)).isBetween(Duration.ofSeconds(5), Duration.ofSeconds(10));
			assertThat(answers).hasSize(30).containsOnly(FakeProviderBodies.OK);
			// The single call's 3 refusals and 1 answer, then one answer per call of the
			// burst (the limit had lifted).
			assertThat(requests).hasSize(4 + 30);
			for (long[] refused : requests) {
				if (refused[1] > 0) {
					assertThat(requests).noneSatisfy((request) -> assertThat(request[0]).isGreaterThan(refused[0])
						.isLessThan(refused[0] + refused[1] - 50_000_000L));
				}
			}
		}
	}

	/**
	 * An engine on the system clock with one target, {@code primary}, on the provider.
	 */
	private static LlmResilience systemClockEngine(FakeProvider provider) {
		return LlmResilience.builder()
			.clock(Clock.systemUTC())
			.target(new Target("primary", "openai", "acct", "gpt-4o", "us", URI.create(provider.baseUrl("primary")),
					null))
			.chain("chat", "primary")
			.extractors(ErrorExtractors.standard().with(List.of(new WebClientErrorExtractor())))
			.build();
	}

	static PartitionSettings noWait() {
		return new PartitionSettings(false, List.of(new PoolSettings(PoolSettings.INTERACTIVE, 70, Duration.ZERO, 1000),
				PoolSettings.background(), PoolSettings.evaluation()), Map.of(), true);
	}

}
