package io.github.llmresilience.execute;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.pool.Capacity;
import io.github.llmresilience.pool.PartitionSettings;
import io.github.llmresilience.pool.PoolSettings;
import io.github.llmresilience.pool.PoolState;
import io.github.llmresilience.test.FakeProvider.Reply;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Quota pools on: a scope of 60 requests a minute, shared interactive 70 % (42),
 * background 20 % (12), evaluation 10 % (6), against a real HTTP provider on virtual
 * time.
 */
@ExtendWith(OutputCaptureExtension.class)
class PoolPartitionTests {

	private static final String SCOPE = "primary/gpt-4o";

	private static final int CAPACITY = 60;

	private final EngineHarness h = new EngineHarness();

	/** When each request reached the provider, from the start. */
	private final List<Duration> arrivals = new CopyOnWriteArrayList<>();

	@AfterEach
	void close() {
		this.h.close();
	}

	private void build() {
		this.h.provider.script("primary", (n) -> {
			this.arrivals.add(this.h.time.elapsed());
			return Reply.ok(FakeProviderBodies.OK);
		});
		this.h.build((builder) -> builder.pools(new PartitionSettings(true, PartitionSettings.defaultPools(),
				Map.of(SCOPE, new Capacity(CAPACITY, 0)), true)), "primary");
	}

	/** A call: how long it took on virtual time, or null when it failed unavailable. */
	private Mono<Duration> call(CallOptions options, Duration at, List<LlmUnavailableException> failures) {
		return Mono.delay(at, this.h.time).then(Mono.defer(() -> {
			Duration start = this.h.time.elapsed();
			return this.h.resilience.execute("chat", options, this.h::webClientCall)
				.map((body) -> this.h.time.elapsed().minus(start))
				.onErrorResume(LlmUnavailableException.class, (ex) -> {
					failures.add(ex);
					return Mono.empty();
				});
		}));
	}

	@Test
	void aBackgroundFloodLeavesInteractiveCallsTheirShareWithoutAWait() {
		build();
		List<LlmUnavailableException> failures = new CopyOnWriteArrayList<>();
		List<Mono<Duration>> background = new ArrayList<>();
		CallOptions job = CallOptions.pool(PoolSettings.BACKGROUND).withDeadline(Duration.ofMinutes(3));
		for (int i = 0; i < 40; i++) {
			background.add(call(job, Duration.ZERO, failures));
		}
		List<Mono<Duration>> interactive = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			interactive.add(call(CallOptions.NONE, Duration.ofSeconds(i), failures));
		}
		List<Duration> backgroundTimes = new CopyOnWriteArrayList<>();
		List<Duration> interactiveTimes = new CopyOnWriteArrayList<>();

		this.h.time.await(Flux
			.merge(Flux.merge(background).doOnNext(backgroundTimes::add),
					Flux.merge(interactive).doOnNext(interactiveTimes::add))
			.then(Mono.just(true)), this.h.inFlight::get);

		assertThat(failures).isEmpty();
		assertThat(interactiveTimes).hasSize(20).containsOnly(Duration.ZERO);
		assertThat(backgroundTimes).hasSize(40);
		// Its own 12, and what interactive (above half of its 42) and evaluation (above
		// half of its 6) left idle, at once; the rest waited for background's own share
		// to refill: one every 5 s, in arrival order.
		long atOnce = backgroundTimes.stream().filter(Duration::isZero).count();
		assertThat(atOnce).isEqualTo(12 + 21 + 3);
		assertThat(backgroundTimes.stream().max(Duration::compareTo).orElseThrow())
			.isEqualTo(Duration.ofSeconds(5).multipliedBy(40 - atOnce));
		assertThat(this.h.resilience.pools().queued()).containsEntry(PoolSettings.BACKGROUND, 0);
	}

	@Test
	void callsWaitingForTheirShareAreServedInArrivalOrder() {
		build();
		List<LlmUnavailableException> failures = new CopyOnWriteArrayList<>();
		CallOptions job = CallOptions.pool(PoolSettings.BACKGROUND).withDeadline(Duration.ofMinutes(3));
		List<Mono<Duration>> burst = new ArrayList<>();
		for (int i = 0; i < 12 + 21 + 3; i++) {
			burst.add(call(job, Duration.ZERO, failures));
		}
		this.h.time.await(Flux.merge(burst).then(Mono.just(true)), this.h.inFlight::get);
		// Background's share and what the others lend are spent: five more arrive 100 ms
		// apart and wait.
		List<Integer> served = new CopyOnWriteArrayList<>();
		List<Mono<Duration>> waiting = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			int arrival = i;
			waiting.add(call(job, Duration.ofMillis(100L * i), failures).doOnNext((time) -> served.add(arrival)));
		}

		this.h.time.await(Flux.merge(waiting).then(Mono.just(true)), this.h.inFlight::get);

		assertThat(failures).isEmpty();
		assertThat(served).containsExactly(0, 1, 2, 3, 4);
	}

	@Test
	void interactiveBorrowsWhatTheOtherPoolsLeaveIdleAndWaitsAtMostTwoSeconds() {
		build();
		List<LlmUnavailableException> failures = new CopyOnWriteArrayList<>();
		List<Mono<Duration>> calls = new ArrayList<>();
		for (int i = 0; i < 55; i++) {
			calls.add(call(CallOptions.NONE, Duration.ZERO, failures));
		}
		List<Duration> times = new CopyOnWriteArrayList<>();

		this.h.time.await(Flux.merge(calls).doOnNext(times::add).then(Mono.just(true)), this.h.inFlight::get);

		// Its own 42, and half of background's 12 and of evaluation's 6, at once.
		assertThat(times.stream().filter(Duration::isZero).count()).isEqualTo(42 + 6 + 3);
		// Then its own share refills one every 60/42 s: one more within 2 s, the rest
		// fail
		// at once, rate limited, with when to come back.
		assertThat(times).hasSize(52).allSatisfy((time) -> assertThat(time).isLessThanOrEqualTo(Duration.ofSeconds(2)));
		assertThat(failures).hasSize(3).allSatisfy((failure) -> {
			assertThat(failure.allThrottled()).isTrue();
			assertThat(failure.steps()).extracting(ChainStep::skipped).containsOnly(ChainStep.Skip.POOL_EXHAUSTED);
		});
	}

	@Test
	void thePartitionNeverSendsMoreThanTheScopesBucketAllows() {
		build();
		List<LlmUnavailableException> failures = new CopyOnWriteArrayList<>();
		List<Mono<Duration>> calls = new ArrayList<>();
		AtomicInteger served = new AtomicInteger();
		for (int i = 0; i < 30; i++) {
			calls.add(call(CallOptions.pool(PoolSettings.BACKGROUND).withDeadline(Duration.ofMinutes(10)),
					Duration.ofSeconds(i), failures));
			calls.add(call(CallOptions.pool(PoolSettings.EVALUATION).withDeadline(Duration.ofMinutes(15)),
					Duration.ofSeconds(i), failures));
			calls.add(call(CallOptions.NONE, Duration.ofSeconds(2L * i), failures));
		}

		this.h.time.await(Flux.merge(calls).doOnNext((time) -> served.incrementAndGet()).then(Mono.just(true)),
				this.h.inFlight::get);

		assertThat(served.get() + failures.size()).isEqualTo(90);
		// A bucket of 60 that refills 60 a minute: by any time t, at most 60 + t
		// requests.
		List<Duration> sorted = this.arrivals.stream().sorted().toList();
		for (int i = 0; i < sorted.size(); i++) {
			assertThat(i + 1).isLessThanOrEqualTo(CAPACITY + (int) sorted.get(i).toSeconds());
		}
		PoolState state = this.h.resilience.pools();
		assertThat(state.enabled()).isTrue();
		assertThat(state.scopes().get(SCOPE).capacity()).isEqualTo(new Capacity(CAPACITY, 0));
		assertThat(state.scopes().get(SCOPE).pools()).containsOnlyKeys(PoolSettings.INTERACTIVE,
				PoolSettings.BACKGROUND, PoolSettings.EVALUATION);
		assertThat(state.scopes().get(SCOPE).pools().get(PoolSettings.BACKGROUND).requestsPerMinute()).isEqualTo(12);
	}

	@Test
	void aRetryOfTheSameTargetDrawsOneMoreRequest() {
		this.h.provider.script("primary",
				(n) -> (n == 1) ? Reply.json(503, FakeProviderBodies.SERVER_ERROR) : Reply.ok(FakeProviderBodies.OK));
		this.h.build(
				(builder) -> builder
					.pools(new PartitionSettings(true, PartitionSettings.defaultPools(),
							Map.of(SCOPE, new Capacity(CAPACITY, 0)), true))
					.random(() -> 0.5),
				"primary");

		assertThat(this.h.chat()).isEqualTo(FakeProviderBodies.OK);

		// Interactive's 42, less the attempt and its retry (the 250 ms backoff refills
		// less than one).
		assertThat(
				this.h.resilience.pools().scopes().get(SCOPE).pools().get(PoolSettings.INTERACTIVE).requestsAvailable())
			.isEqualTo(42 - 2);
		assertThat(this.h.provider.requests("primary")).isEqualTo(2);
	}

	@Test
	void aScopeWithoutAKnownCapacityIsNotPartitioned() {
		this.h.provider.always("primary", Reply.ok(FakeProviderBodies.OK));
		this.h.build((builder) -> builder.pools(PartitionSettings.defaults().on()), "primary");
		List<LlmUnavailableException> failures = new CopyOnWriteArrayList<>();
		List<Mono<Duration>> calls = new ArrayList<>();
		for (int i = 0; i < 100; i++) {
			calls.add(call(CallOptions.pool(PoolSettings.EVALUATION), Duration.ZERO, failures));
		}
		List<Duration> times = new CopyOnWriteArrayList<>();

		this.h.time.await(Flux.merge(calls).doOnNext(times::add).then(Mono.just(true)), this.h.inFlight::get);

		assertThat(times).hasSize(100).containsOnly(Duration.ZERO);
		assertThat(this.h.resilience.pools().scopes()).isEmpty();
	}

	private static String answerUsing(long input, long output) {
		return "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,"
				+ "\"message\":{\"role\":\"assistant\",\"content\":\"Hello\"},\"finish_reason\":\"stop\"}],"
				+ "\"usage\":{\"prompt_tokens\":" + input + ",\"completion_tokens\":" + output + ",\"total_tokens\":"
				+ (input + output) + "}}";
	}

	@Test
	void theCapacityIsLearnedFromTheProvidersHeadersAndPartitionedFromThen() {
		this.h.provider.always("primary", Reply.json(200,
				Map.of("content-type", "application/json", "x-ratelimit-limit-requests", String.valueOf(CAPACITY)),
				answerUsing(10, 20)));
		this.h.build((builder) -> builder.pools(PartitionSettings.defaults().on()), "primary");

		this.h.time.await(this.h.resilience.execute("chat", this.h::handingOver), this.h.inFlight::get);

		assertThat(this.h.events(StateChange.Kind.POOL_CAPACITY_CHANGED)).singleElement().satisfies((change) -> {
			assertThat(change.subject()).isEqualTo(SCOPE);
			assertThat(change.detail()).contains("capacity learned").contains(CAPACITY + " requests/min");
		});
		assertThat(this.h.resilience.pools().scopes().get(SCOPE).capacity()).isEqualTo(new Capacity(CAPACITY, 0));
		List<Duration> times = new CopyOnWriteArrayList<>();
		List<Mono<Duration>> calls = new ArrayList<>();
		for (int i = 0; i < 40; i++) {
			calls.add(Mono.defer(() -> {
				Duration start = this.h.time.elapsed();
				return this.h.resilience.execute("chat", CallOptions.pool(PoolSettings.EVALUATION), this.h::handingOver)
					.map((body) -> this.h.time.elapsed().minus(start));
			}));
		}
		this.h.time.await(Flux.merge(calls).doOnNext(times::add).then(Mono.just(true)), this.h.inFlight::get);

		// Evaluation's own 6, and half of interactive's 42 and of background's 12, at
		// once;
		// then one every 10 s as its own share refills.
		assertThat(times.stream().filter(Duration::isZero).count()).isEqualTo(6 + 21 + 6);
		assertThat(times).hasSize(40);
		// The same headers on every answer: learned once.
		assertThat(this.h.events(StateChange.Kind.POOL_CAPACITY_CHANGED)).hasSize(1);
	}

	@Test
	void tokensAnAnswerUsedAreDrawnAfterItAndACallThatWouldOverdrawWaitsOrFailsWithWhenToComeBack() {
		long tokensPerMinute = 6000;
		long interactiveTokens = tokensPerMinute * 70 / 100;
		long used = 5000;
		this.h.provider.always("primary",
				Reply.json(200, Map.of("content-type", "application/json"), answerUsing(used - 1000, 1000)));
		this.h.build((builder) -> builder.pools(new PartitionSettings(true, PartitionSettings.defaultPools(),
				Map.of(SCOPE, new Capacity(0, tokensPerMinute)), true)), "primary");

		this.h.time.await(this.h.resilience.execute("chat", this.h::handingOver), this.h.inFlight::get);
		Instant now = this.h.time.instant();
		LlmUnavailableException unavailable = (LlmUnavailableException) this.h.chatFailure();

		// Interactive's 4200 tokens less the 5000 used: 800 in debt. The next call is
		// expected to use as much as the last (5000, cut to the bucket's 4200): the
		// bucket must refill 800 + 4200 at 4200 a minute, far beyond interactive's 2 s.
		long needed = (used - interactiveTokens) + Math.min(used, interactiveTokens);
		Duration expected = Duration.ofNanos(needed * 60_000_000_000L / interactiveTokens);
		assertThat(unavailable.steps()).extracting(ChainStep::skipped).containsExactly(ChainStep.Skip.POOL_EXHAUSTED);
		assertThat(Duration.between(now, unavailable.retryAfter())).isBetween(expected.minusSeconds(1),
				expected.plusSeconds(1));
		assertThat(this.h.provider.requests("primary")).isEqualTo(1);
		assertThat(
				this.h.resilience.pools().scopes().get(SCOPE).pools().get(PoolSettings.INTERACTIVE).tokensAvailable())
			.isEqualTo(interactiveTokens - used);
	}

	/**
	 * Calls made one after the other: how many were served, and what the others threw.
	 */
	private int served(int calls, CallOptions options, Duration apart, List<Throwable> failures) {
		int served = 0;
		for (int i = 0; i < calls; i++) {
			if (i > 0) {
				this.h.time.advance(apart);
			}
			try {
				this.h.time.await(this.h.resilience.execute("chat", options, this.h::handingOver),
						this.h.inFlight::get);
				served++;
			}
			catch (RuntimeException ex) {
				failures.add(ex);
			}
		}
		return served;
	}

	/** Calls made at once: how many were served; the others failed unavailable. */
	private int servedAtOnce(int calls, CallOptions options, List<LlmUnavailableException> failures) {
		List<Mono<Duration>> burst = new ArrayList<>();
		for (int i = 0; i < calls; i++) {
			burst.add(call(options, Duration.ZERO, failures));
		}
		AtomicInteger served = new AtomicInteger();
		this.h.time.await(Flux.merge(burst).doOnNext((time) -> served.incrementAndGet()).then(Mono.just(true)),
				this.h.inFlight::get);
		return served.get();
	}

	@Test
	void aLearnedCapacityBeyondWhatABucketRefillsIsBoundedToItAndEveryAnswerServesItsCall() {
		// In the accepted range (1 to 10^12), beyond Bucket4j's one token a nanosecond.
		this.h.provider.always("primary",
				Reply.json(200,
						Map.of("content-type", "application/json", "x-ratelimit-limit-requests", "1000000000000"),
						answerUsing(10, 20)));
		this.h.build((builder) -> builder.pools(PartitionSettings.defaults().on()), "primary");
		List<Throwable> failures = new ArrayList<>();

		int served = served(20, CallOptions.NONE, Duration.ZERO, failures);

		assertThat(failures).isEmpty();
		assertThat(served).isEqualTo(20);
		assertThat(this.h.provider.requests("primary")).isEqualTo(20);
		// A bucket refills at most one token a nanosecond: a minute's worth.
		long most = Duration.ofMinutes(1).toNanos();
		assertThat(this.h.resilience.pools().scopes().get(SCOPE).capacity()).isEqualTo(new Capacity(most, 0));
		assertThat(this.h.events(StateChange.Kind.POOL_CAPACITY_CHANGED)).hasSize(1);
	}

	@Test
	void bookkeepingThatFailsAfterAnAnswerNeverFailsTheCallItServedAndIsLoggedOnce(CapturedOutput output) {
		// An answer that says it used 10^15 tokens: the debt it would leave in a bucket
		// of
		// 4200 tokens a minute is beyond what Bucket4j can reserve (it throws).
		this.h.provider.always("primary",
				Reply.json(200, Map.of("content-type", "application/json"), answerUsing(1_000_000_000_000_000L, 0)));
		this.h.build((builder) -> builder.pools(new PartitionSettings(true, PartitionSettings.defaultPools(),
				Map.of(SCOPE, new Capacity(0, 6000)), true)), "primary");
		List<Throwable> failures = new ArrayList<>();

		// One a minute: each finds interactive's bucket refilled.
		int served = served(20, CallOptions.NONE, Duration.ofMinutes(1), failures);

		assertThat(failures).isEmpty();
		assertThat(served).isEqualTo(20);
		assertThat(this.h.provider.requests("primary")).isEqualTo(20);
		assertThat(output.getOut().split("after an answer of primary failed", -1)).hasSize(2);
	}

	@Test
	void callsWaitingWhileTheCapacityIsLearnedStayCountedAndThePoolLendsAgainAfterwards() {
		// The first request is rate limited; every answer after it states 60 a minute.
		this.h.provider.script("primary",
				(n) -> (n == 1)
						? Reply.json(429, Map.of("retry-after", "1"),
								EngineHarness.fixture("openai-429-tpm-rate-limit"))
						: Reply.json(200, Map.of("content-type", "application/json", "x-ratelimit-limit-requests",
								String.valueOf(CAPACITY)), answerUsing(10, 20)));
		List<Integer> waiting = new CopyOnWriteArrayList<>();
		this.h.build(
				(builder) -> builder.pools(PartitionSettings.defaults().on())
					.listener((change) -> this.h.resilience.pools()
						.scopes()
						.values()
						.forEach((scope) -> scope.pools().values().forEach((pool) -> waiting.add(pool.waiting())))),
				"primary");
		// Twenty interactive calls 50 ms apart: all wait for the gate, and the capacity
		// is
		// learned from the first answer after it while the others still wait.
		List<Mono<Void>> calls = new ArrayList<>();
		AtomicInteger served = new AtomicInteger();
		for (int i = 0; i < 20; i++) {
			calls.add(Mono.delay(Duration.ofMillis(50L * i), this.h.time)
				.then(this.h.resilience.execute("chat", this.h::handingOver))
				.doOnNext((body) -> served.incrementAndGet())
				.then());
		}
		this.h.time.await(Flux.merge(calls).then(Mono.just(true)), this.h.inFlight::get);
		assertThat(served.get()).isEqualTo(20);
		assertThat(this.h.events(StateChange.Kind.POOL_CAPACITY_CHANGED)).hasSize(1);
		this.h.time.advance(Duration.ofMinutes(1));
		PoolState.ScopePools scope = this.h.resilience.pools().scopes().get(SCOPE);
		assertThat(scope.pools().values()).allSatisfy((pool) -> assertThat(pool.waiting()).isZero());
		assertThat(waiting).isNotEmpty().allSatisfy((count) -> assertThat(count).isNotNegative());

		// A burst of background calls that may not wait: its own 12, half of
		// interactive's 42 and of evaluation's 6.
		List<LlmUnavailableException> failures = new CopyOnWriteArrayList<>();
		int burst = servedAtOnce(30, CallOptions.pool(PoolSettings.BACKGROUND).withDeadline(Duration.ofSeconds(1)),
				failures);

		assertThat(failures).isEmpty();
		assertThat(burst).isEqualTo(30);
	}

	@Test
	void aLearnedCapacityOfTwoRequestsAMinuteIsNotBelievedAndTheScopeStaysUnpartitioned() {
		this.h.provider.always("primary", Reply.json(200,
				Map.of("content-type", "application/json", "x-ratelimit-limit-requests", "2"), answerUsing(10, 20)));
		this.h.build((builder) -> builder.pools(PartitionSettings.defaults().on()), "primary");
		this.h.time.await(this.h.resilience.execute("chat", this.h::handingOver), this.h.inFlight::get);
		List<LlmUnavailableException> failures = new CopyOnWriteArrayList<>();

		int served = servedAtOnce(20, CallOptions.NONE, failures);

		assertThat(failures).isEmpty();
		assertThat(served).isEqualTo(20);
		assertThat(this.h.resilience.pools().scopes()).isEmpty();
		assertThat(this.h.events(StateChange.Kind.POOL_CAPACITY_CHANGED)).isEmpty();
	}

	@Test
	void aConfiguredCapacityOfTwoRequestsAMinuteIsTakenAsTheOperatorSaysIt() {
		this.h.provider.always("primary", Reply.ok(FakeProviderBodies.OK));
		this.h.build((builder) -> builder.pools(
				new PartitionSettings(true, PartitionSettings.defaultPools(), Map.of(SCOPE, new Capacity(2, 0)), true)),
				"primary");
		List<LlmUnavailableException> failures = new CopyOnWriteArrayList<>();

		int served = servedAtOnce(20, CallOptions.NONE, failures);

		// Each pool's part is at least one: interactive's own, and one lent by each of
		// the others (a bucket of one keeps nothing back).
		assertThat(served).isEqualTo(3);
		assertThat(failures).hasSize(20 - 3)
			.allSatisfy((failure) -> assertThat(failure.steps()).extracting(ChainStep::skipped)
				.containsOnly(ChainStep.Skip.POOL_EXHAUSTED));
	}

}
