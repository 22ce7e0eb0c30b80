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
	void aBackgroundFloodTakesWhatIsIdleAndEachInteractiveCallGoesAtTheNextRefill() {
		build();
		List<LlmUnavailableException> failures = new CopyOnWriteArrayList<>();
		List<Mono<Duration>> background = new ArrayList<>();
		CallOptions job = CallOptions.pool(PoolSettings.BACKGROUND).withDeadline(Duration.ofMinutes(3));
		for (int i = 0; i < 80; i++) {
			background.add(call(job, Duration.ZERO, failures));
		}
		List<Mono<Duration>> interactive = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			// One every 2 s: 30 a minute, under interactive's share (70 % of 60).
			interactive.add(call(CallOptions.NONE, Duration.ofSeconds(2L * i).plusMillis(500), failures));
		}
		List<Duration> backgroundTimes = new CopyOnWriteArrayList<>();
		List<Duration> interactiveTimes = new CopyOnWriteArrayList<>();

		this.h.time.await(Flux
			.merge(Flux.merge(background).doOnNext(backgroundTimes::add),
					Flux.merge(interactive).doOnNext(interactiveTimes::add))
			.then(Mono.just(true)), this.h.inFlight::get);

		assertThat(failures).isEmpty();
		// Nobody else asked: the job took the whole scope at once.
		assertThat(backgroundTimes).hasSize(80);
		assertThat(backgroundTimes.stream().filter(Duration::isZero).count()).isEqualTo(CAPACITY);
		// Each interactive call went ahead of the job's waiting calls, at the next
		// refill (one a second at 60 a minute): never behind the burst.
		assertThat(interactiveTimes).hasSize(20)
			.allSatisfy((time) -> assertThat(time).isLessThanOrEqualTo(Duration.ofMillis(500)));
		// The job's last call went when the 40 refills after the burst were in: 20
		// taken by interactive, 20 by the job.
		assertThat(backgroundTimes.stream().max(Duration::compareTo).orElseThrow()).isBetween(Duration.ofSeconds(40),
				Duration.ofSeconds(41));
		assertThat(this.h.resilience.pools().queued()).containsEntry(PoolSettings.BACKGROUND, 0);
		assertThat(this.arrivals).hasSize(100);
	}

	@Test
	void callsWaitingForTheirShareAreServedInArrivalOrder() {
		build();
		List<LlmUnavailableException> failures = new CopyOnWriteArrayList<>();
		CallOptions job = CallOptions.pool(PoolSettings.BACKGROUND).withDeadline(Duration.ofMinutes(3));
		List<Mono<Duration>> burst = new ArrayList<>();
		for (int i = 0; i < CAPACITY; i++) {
			burst.add(call(job, Duration.ZERO, failures));
		}
		this.h.time.await(Flux.merge(burst).then(Mono.just(true)), this.h.inFlight::get);
		// The scope is spent: five more arrive 100 ms apart and wait.
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
	void aPoolAloneTakesTheWholeScopeAndWaitsAtMostItsMaxWaitForMore() {
		build();
		List<LlmUnavailableException> failures = new CopyOnWriteArrayList<>();
		List<Mono<Duration>> calls = new ArrayList<>();
		for (int i = 0; i < CAPACITY + 5; i++) {
			calls.add(call(CallOptions.NONE, Duration.ZERO, failures));
		}
		List<Duration> times = new CopyOnWriteArrayList<>();

		this.h.time.await(Flux.merge(calls).doOnNext(times::add).then(Mono.just(true)), this.h.inFlight::get);

		// The other pools asked for nothing: all 60 at once.
		assertThat(times.stream().filter(Duration::isZero).count()).isEqualTo(CAPACITY);
		// Then one refill a second: two more within interactive's 2 s; the rest fail at
		// once, rate limited, with when to come back.
		assertThat(times).hasSize(CAPACITY + 2)
			.allSatisfy((time) -> assertThat(time).isLessThanOrEqualTo(Duration.ofSeconds(2)));
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

		// The scope's 60, less the attempt and its retry (the 250 ms backoff refills
		// less than one).
		assertThat(this.h.resilience.pools().scopes().get(SCOPE).requestsAvailable()).isEqualTo(CAPACITY - 2);
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
		for (int i = 0; i < CAPACITY + 10; i++) {
			calls.add(Mono.defer(() -> {
				Duration start = this.h.time.elapsed();
				return this.h.resilience.execute("chat", CallOptions.pool(PoolSettings.EVALUATION), this.h::handingOver)
					.map((body) -> this.h.time.elapsed().minus(start));
			}));
		}
		this.h.time.await(Flux.merge(calls).doOnNext(times::add).then(Mono.just(true)), this.h.inFlight::get);

		// The whole scope at once (no other pool asked), then one a second as it
		// refills.
		assertThat(times.stream().filter(Duration::isZero).count()).isEqualTo(CAPACITY);
		assertThat(times).hasSize(CAPACITY + 10);
		assertThat(times.stream().max(Duration::compareTo).orElseThrow()).isEqualTo(Duration.ofSeconds(10));
		// The same headers on every answer: learned once.
		assertThat(this.h.events(StateChange.Kind.POOL_CAPACITY_CHANGED)).hasSize(1);
	}

	@Test
	void tokensAnAnswerUsedAreDrawnAfterItAndACallThatWouldOverdrawWaitsOrFailsWithWhenToComeBack() {
		long tokensPerMinute = 6000;
		long used = 5000;
		this.h.provider.always("primary",
				Reply.json(200, Map.of("content-type", "application/json"), answerUsing(used - 1000, 1000)));
		this.h.build((builder) -> builder.pools(new PartitionSettings(true, PartitionSettings.defaultPools(),
				Map.of(SCOPE, new Capacity(0, tokensPerMinute)), true)), "primary");

		this.h.time.await(this.h.resilience.execute("chat", this.h::handingOver), this.h.inFlight::get);
		Instant now = this.h.time.instant();
		LlmUnavailableException unavailable = (LlmUnavailableException) this.h.chatFailure();

		// The scope's 6000 tokens less the 5000 used: 1000 left. The next call is
		// expected to use as much as the last (5000): the scope must refill 4000 at 6000
		// a minute, 40 s, far beyond interactive's 2 s.
		long needed = used - (tokensPerMinute - used);
		Duration expected = Duration.ofNanos(needed * 60_000_000_000L / tokensPerMinute);
		assertThat(unavailable.steps()).extracting(ChainStep::skipped).containsExactly(ChainStep.Skip.POOL_EXHAUSTED);
		assertThat(Duration.between(now, unavailable.retryAfter())).isBetween(expected.minusSeconds(1),
				expected.plusSeconds(1));
		assertThat(this.h.provider.requests("primary")).isEqualTo(1);
		assertThat(this.h.resilience.pools().scopes().get(SCOPE).tokensAvailable()).isEqualTo(tokensPerMinute - used);
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
	void usageBeyondAMinuteOfTheScopeIsCountedAsAMinuteAndLoggedOnce(CapturedOutput output) {
		// An answer that says it used 10^15 tokens, of a scope of 6000 a minute: no
		// provider serves that, and the debt could not be reserved in a bucket.
		this.h.provider.always("primary",
				Reply.json(200, Map.of("content-type", "application/json"), answerUsing(1_000_000_000_000_000L, 0)));
		this.h.build((builder) -> builder.pools(new PartitionSettings(true, PartitionSettings.defaultPools(),
				Map.of(SCOPE, new Capacity(0, 6000)), true)), "primary");
		List<Throwable> failures = new ArrayList<>();

		// One a minute: each finds the scope refilled.
		int served = served(20, CallOptions.NONE, Duration.ofMinutes(1), failures);

		assertThat(failures).isEmpty();
		assertThat(served).isEqualTo(20);
		assertThat(this.h.provider.requests("primary")).isEqualTo(20);
		assertThat(output.getOut().split("tokens used, more than", -1)).hasSize(2);
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

		// A burst of background calls that may not wait: nobody else asks, the scope
		// holds them all.
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

		// The scope holds two, and a pool that asks alone takes both.
		assertThat(served).isEqualTo(2);
		assertThat(failures).hasSize(20 - 2)
			.allSatisfy((failure) -> assertThat(failure.steps()).extracting(ChainStep::skipped)
				.containsOnly(ChainStep.Skip.POOL_EXHAUSTED));
	}

}
