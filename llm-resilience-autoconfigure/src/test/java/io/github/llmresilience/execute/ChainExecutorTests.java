package io.github.llmresilience.execute;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.llmresilience.breaker.Breaker;
import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.overload.ClientThrottlingSettings;
import io.github.llmresilience.retry.RetrySettings;
import io.github.llmresilience.state.TargetState.BreakerState;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.test.FakeProvider.Reply;
import io.github.llmresilience.throttle.ThrottleSettings;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.web.reactive.function.client.WebClientResponseException;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The chain executor against a real HTTP provider, on virtual time: outages, rate limits,
 * quotas, credentials, rejected requests, retry budget, deadlines, concurrency.
 */
class ChainExecutorTests {

	private static final String RATE_LIMIT = EngineHarness.fixture("openai-429-tpm-rate-limit");

	private static final String INSUFFICIENT_QUOTA = EngineHarness.fixture("openai-429-insufficient-quota");

	private static final String INVALID_KEY = EngineHarness.fixture("openai-401-invalid-api-key");

	private static final String CONTEXT_TOO_LONG = EngineHarness.fixture("openai-400-context-length-exceeded");

	private static final String CONTENT_FILTER = EngineHarness.fixture("azure-400-content-filter-prompt-violence");

	private final EngineHarness h = new EngineHarness();

	@AfterEach
	void close() {
		this.h.close();
	}

	@Test
	void outageOfTheOnlyTargetReachesTheProviderAtMostMinimumCallsPlusOneTimesThenOneTrialCloses() {
		AtomicBoolean down = new AtomicBoolean(true);
		this.h.provider.script("primary",
				(n) -> down.get() ? Reply.json(503, FakeProviderBodies.SERVER_ERROR) : Reply.ok(FakeProviderBodies.OK));
		this.h.build((builder) -> {
		}, "primary");

		List<LlmUnavailableException> failures = new ArrayList<>();
		for (int i = 0; i < 30; i++) {
			this.h.at(Duration.ofMillis(500L * i));
			failures.add((LlmUnavailableException) this.h.chatFailure());
		}
		assertThat(this.h.time.elapsed()).isLessThan(Duration.ofSeconds(20));
		int duringOutage = this.h.provider.requests("primary");
		assertThat(duringOutage).isLessThanOrEqualTo(10 + 1);

		List<StateChange> opened = this.h.events(StateChange.Kind.BREAKER_OPENED);
		assertThat(opened).hasSize(1);
		Instant halfOpenAt = opened.get(0).until();
		assertThat(halfOpenAt).isEqualTo(opened.get(0).at().plusSeconds(30));
		List<LlmUnavailableException> fastFailures = failures.stream()
			.filter((failure) -> failure.steps().stream().allMatch(ChainStep::isSkip))
			.toList();
		assertThat(fastFailures).hasSizeGreaterThanOrEqualTo(30 - duringOutage);
		assertThat(fastFailures).allSatisfy((failure) -> {
			assertThat(failure.retryAfter()).isEqualTo(halfOpenAt);
			assertThat(failure.steps()).extracting(ChainStep::skipped).containsExactly(ChainStep.Skip.BREAKER_OPEN);
			assertThat(failure.allThrottled()).isFalse();
		});

		down.set(false);
		this.h.time.advanceTo(halfOpenAt.plusMillis(1));
		assertThat(this.h.chat()).isEqualTo(FakeProviderBodies.OK);
		assertThat(this.h.provider.requests("primary")).isEqualTo(duringOutage + 1);
		assertThat(this.h.resilience.breaker("primary").state()).isEqualTo(CircuitBreaker.State.CLOSED);
	}

	@Test
	void outageOfTheFirstTargetIsServedByTheSecondEveryTime() {
		this.h.provider.always("primary", Reply.json(503, FakeProviderBodies.SERVER_ERROR));
		this.h.provider.always("secondary", Reply.ok(FakeProviderBodies.OK_SECONDARY));
		this.h.build((builder) -> {
		}, "primary", "secondary");

		int served = 0;
		for (int i = 0; i < 30; i++) {
			this.h.at(Duration.ofMillis(500L * i));
			if (this.h.chat().equals(FakeProviderBodies.OK_SECONDARY)) {
				served++;
			}
		}
		assertThat(served).isEqualTo(30);
		assertThat(this.h.provider.requests("secondary")).isEqualTo(30);
		assertThat(this.h.provider.requests("primary")).isLessThanOrEqualTo(11);
		assertThat(this.h.resilience.breaker("primary").state()).isEqualTo(CircuitBreaker.State.OPEN);
	}

	@Test
	void rateLimitGatesTheScopeForItsRetryAfterWhileTheNextTargetServesAndTheBreakerStaysClosed() {
		this.h.provider.script("primary", (n) -> (n == 1) ? Reply.json(429, Map.of("retry-after", "2"), RATE_LIMIT)
				: Reply.ok(FakeProviderBodies.OK));
		this.h.provider.always("secondary", Reply.ok(FakeProviderBodies.OK_SECONDARY));
		this.h.build((builder) -> {
		}, "primary", "secondary");

		assertThat(this.h.chat()).isEqualTo(FakeProviderBodies.OK_SECONDARY);
		for (long millis : new long[] { 500, 1000, 1500, 1999 }) {
			this.h.at(Duration.ofMillis(millis));
			assertThat(this.h.chat()).isEqualTo(FakeProviderBodies.OK_SECONDARY);
		}
		assertThat(this.h.provider.requests("primary")).isEqualTo(1);
		this.h.at(Duration.ofSeconds(2));
		assertThat(this.h.chat()).isEqualTo(FakeProviderBodies.OK);
		assertThat(this.h.provider.requests("primary")).isEqualTo(2);

		BreakerState breaker = this.h.resilience.state().target("primary").breaker();
		assertThat(breaker.status()).isEqualTo(BreakerState.Status.CLOSED);
		assertThat(breaker.failedCalls()).isZero();
		assertThat(breaker.successfulCalls()).isEqualTo(2);
		assertThat(this.h.events(StateChange.Kind.SCOPE_GATED)).singleElement()
			.satisfies((gated) -> assertThat(gated.until()).isEqualTo(gated.at().plusSeconds(2)));
	}

	@Test
	void everyTargetThrottledIsReportedAsAllThrottledWithTheEarliestGateEnd() {
		this.h.provider.always("primary", Reply.json(429, Map.of("retry-after", "7"), RATE_LIMIT));
		this.h.provider.always("secondary", Reply.json(429, Map.of("retry-after", "3"), RATE_LIMIT));
		this.h.build((builder) -> {
		}, "primary", "secondary");

		// Calls whose deadline ends before the earliest release: they do not wait for it.
		CallOptions soon = CallOptions.deadline(Duration.ofSeconds(2));
		LlmUnavailableException first = (LlmUnavailableException) this.h.chatFailure(soon);
		assertThat(first.allThrottled()).isTrue();
		assertThat(first.retryAfter()).isEqualTo(this.h.time.instant().plusSeconds(3));
		LlmUnavailableException second = (LlmUnavailableException) this.h.chatFailure(soon);
		assertThat(second.allThrottled()).isTrue();
		assertThat(second.steps()).extracting(ChainStep::skipped)
			.containsExactly(ChainStep.Skip.SCOPE_GATED, ChainStep.Skip.SCOPE_GATED);
		assertThat(this.h.provider.totalRequests()).isEqualTo(2);
	}

	@Test
	void insufficientQuotaParksTheAccountForEveryTargetOfItUntilTheParkEnds() {
		Target primary = this.h.target("primary", "acct-a");
		Target primaryMini = new Target("primary-mini", "openai", "acct-a", "gpt-4o-mini", "region-primary",
				URI.create(this.h.provider.baseUrl("primary-mini")), null);
		Target secondary = this.h.target("secondary", "acct-b");
		this.h.provider.always("primary", Reply.json(429, INSUFFICIENT_QUOTA));
		this.h.provider.always("primary-mini", Reply.ok(FakeProviderBodies.OK));
		this.h.provider.always("secondary", Reply.ok(FakeProviderBodies.OK_SECONDARY));
		this.h.build(List.of(primary, primaryMini, secondary), (builder) -> {
		});

		assertThat(this.h.chat()).isEqualTo(FakeProviderBodies.OK_SECONDARY);
		for (int minute = 1; minute < 60; minute += 7) {
			this.h.at(Duration.ofMinutes(minute));
			assertThat(this.h.chat()).isEqualTo(FakeProviderBodies.OK_SECONDARY);
		}
		assertThat(this.h.provider.requests("primary")).isEqualTo(1);
		assertThat(this.h.provider.requests("primary-mini")).isZero();
		assertThat(this.h.events(StateChange.Kind.ACCOUNT_PARKED)).singleElement()
			.satisfies((parked) -> assertThat(parked.subject()).isEqualTo("acct-a"));
		// Quota is not the provider's health: the breaker saw nothing.
		assertThat(this.h.resilience.state().target("primary").breaker().bufferedCalls()).isZero();

		this.h.at(Duration.ofHours(1));
		this.h.chat();
		assertThat(this.h.provider.requests("primary")).isEqualTo(2);
	}

	@Test
	void twoCredentialErrorsInARowLockTheAccountWithACoolOffThatDoubles() {
		this.h.provider.always("primary", Reply.json(401, INVALID_KEY));
		this.h.provider.always("secondary", Reply.ok(FakeProviderBodies.OK_SECONDARY));
		this.h.build((builder) -> {
		}, "primary", "secondary");

		this.h.chat();
		assertThat(this.h.events(StateChange.Kind.ACCOUNT_LOCKED)).isEmpty();
		this.h.chat();
		assertThat(this.h.events(StateChange.Kind.ACCOUNT_LOCKED)).singleElement()
			.satisfies((locked) -> assertThat(locked.until()).isEqualTo(locked.at().plus(Duration.ofMinutes(1))));
		this.h.chat();
		assertThat(this.h.provider.requests("primary")).isEqualTo(2);

		this.h.at(Duration.ofMinutes(1));
		this.h.chat();
		this.h.chat();
		assertThat(this.h.provider.requests("primary")).isEqualTo(4);
		assertThat(this.h.events(StateChange.Kind.ACCOUNT_LOCKED)).hasSize(2)
			.last()
			.satisfies((locked) -> assertThat(locked.until()).isEqualTo(locked.at().plus(Duration.ofMinutes(2))));
		assertThat(this.h.resilience.state().target("primary").breaker().bufferedCalls()).isZero();
	}

	@Test
	void aSuccessBetweenTwoCredentialErrorsResetsTheCount() {
		this.h.provider.script("primary",
				(n) -> (n == 2) ? Reply.ok(FakeProviderBodies.OK) : Reply.json(401, INVALID_KEY));
		this.h.provider.always("secondary", Reply.ok(FakeProviderBodies.OK_SECONDARY));
		this.h.build((builder) -> {
		}, "primary", "secondary");

		this.h.chat();
		this.h.chat();
		this.h.chat();
		this.h.chat();
		assertThat(this.h.provider.requests("primary")).isEqualTo(4);
		assertThat(this.h.events(StateChange.Kind.ACCOUNT_LOCKED)).hasSize(1);
	}

	@Test
	void aBadRequestReachesTheCallerAfterExactlyOneProviderRequest() {
		this.h.provider.always("primary", Reply.json(400, CONTEXT_TOO_LONG));
		this.h.provider.always("secondary", Reply.ok(FakeProviderBodies.OK_SECONDARY));
		this.h.build((builder) -> {
		}, "primary", "secondary");

		Throwable failure = this.h.chatFailure();
		assertThat(failure).isInstanceOf(LlmRejectedException.class);
		LlmRejectedException rejected = (LlmRejectedException) failure;
		assertThat(rejected.verdict().outcome()).isEqualTo(Outcome.REQUEST);
		assertThat(rejected.verdict().errorType()).contains("context_length_exceeded");
		assertThat(rejected.target()).isEqualTo("primary");
		assertThat(rejected.getCause()).isInstanceOf(WebClientResponseException.BadRequest.class);
		assertThat(this.h.provider.totalRequests()).isEqualTo(1);
	}

	@Test
	void aContentFilterRefusalReachesTheCallerAfterExactlyOneProviderRequest() {
		this.h.provider.always("primary", Reply.json(400, CONTENT_FILTER));
		this.h.provider.always("secondary", Reply.ok(FakeProviderBodies.OK_SECONDARY));
		this.h.build((builder) -> {
		}, "primary", "secondary");

		Throwable failure = this.h.chatFailure();
		assertThat(failure).isInstanceOfSatisfying(LlmRejectedException.class,
				(rejected) -> assertThat(rejected.verdict().outcome()).isEqualTo(Outcome.CONTENT_FILTER));
		assertThat(this.h.provider.totalRequests()).isEqualTo(1);
	}

	@Test
	void theRetryBudgetCapsRetriesAgainstADeadTarget() {
		this.h.provider.always("primary", Reply.json(503, FakeProviderBodies.SERVER_ERROR));
		List<CallObserver.RetryResult> retries = new CopyOnWriteArrayList<>();
		// The retry budget alone: client-side throttling would refuse most of these
		// requests before they are sent (OverloadControlTests).
		this.h.build((builder) -> builder.breaker(neverOpens())
			.clientThrottling(ClientThrottlingSettings.defaults().withEnabled(false))
			.retry(new RetrySettings(3, Duration.ofMillis(10), Duration.ofMillis(20), 0.1, Duration.ofSeconds(10), 3))
			.observer(new CallObserver() {
				@Override
				public void onRetry(String chain, Target target, RetryResult result) {
					retries.add(result);
				}
			}), "primary");

		for (int i = 0; i < 100; i++) {
			assertThat(this.h.chatFailure()).isInstanceOf(LlmUnavailableException.class);
		}
		int requests = this.h.provider.requests("primary");
		assertThat(requests).isLessThanOrEqualTo(110 + 3);
		// 10 % of 100 calls: the budget, not the attempts per target, was the limit.
		assertThat(requests).isEqualTo(110);
		// Every call but the first (which used its two retries) was refused one retry.
		assertThat(retries).filteredOn((result) -> result == CallObserver.RetryResult.BUDGET_EXHAUSTED).hasSize(99);
		assertThat(retries).filteredOn((result) -> result == CallObserver.RetryResult.ATTEMPTED).hasSize(10);
		assertThat(this.h.time.elapsed()).isLessThan(Duration.ofSeconds(1));
	}

	@Test
	void aDeadlineNeverStartsABackoffThatEndsAfterIt() {
		this.h.provider.always("primary", Reply.json(503, FakeProviderBodies.SERVER_ERROR));
		Random random = new Random(42);
		List<Instant> backoffEnds = new CopyOnWriteArrayList<>();
		List<CallObserver.RetryResult> results = new CopyOnWriteArrayList<>();
		this.h.build((builder) -> builder.breaker(neverOpens())
			.retry(new RetrySettings(10, Duration.ofSeconds(1), Duration.ofSeconds(10), 1.0, Duration.ofSeconds(10),
					1_000_000))
			.random(random::nextDouble)
			.observer(new CallObserver() {
				@Override
				public void onBackoff(String chain, Target target, long nanos) {
					backoffEnds.add(EngineHarnessTime.now(ChainExecutorTests.this.h));
				}

				@Override
				public void onRetry(String chain, Target target, RetryResult result) {
					results.add(result);
				}
			}), "primary");

		for (int call = 0; call < 50; call++) {
			Instant start = this.h.time.instant();
			backoffEnds.clear();
			Throwable failure = this.h.chatFailure(CallOptions.deadline(Duration.ofSeconds(3)));
			assertThat(failure).isInstanceOf(LlmUnavailableException.class);
			assertThat(backoffEnds).allSatisfy((end) -> assertThat(end).isBeforeOrEqualTo(start.plusSeconds(3)));
			assertThat(this.h.time.instant()).isBeforeOrEqualTo(start.plusSeconds(3));
			this.h.time.advance(Duration.ofMinutes(1));
		}
		assertThat(results).contains(CallObserver.RetryResult.DEADLINE);
		assertThat(results).doesNotContain(CallObserver.RetryResult.MAX_ATTEMPTS);
	}

	@Test
	void aDeadlineCutsTheAttemptTimeoutToTheTimeLeft() {
		this.h.provider.always("primary", Reply.ok(FakeProviderBodies.OK));
		List<Duration> timeouts = new CopyOnWriteArrayList<>();
		this.h.build((builder) -> {
		}, "primary");
		this.h.time.await(this.h.resilience.execute("chat", CallOptions.deadline(Duration.ofSeconds(3)), (attempt) -> {
			timeouts.add(attempt.timeout());
			return this.h.webClientCall(attempt);
		}), this.h.inFlight::get);
		assertThat(timeouts).containsExactly(Duration.ofSeconds(3));
	}

	@Test
	@Timeout(120)
	void tenThousandCallsOnEightThreadsWithMixedVerdictsKeepExactCountsAndNeverDeadlock() throws Exception {
		this.h.provider.script("primary", (n) -> switch (n % 10) {
			case 6 -> Reply.json(503, FakeProviderBodies.SERVER_ERROR);
			case 7 -> Reply.json(500, FakeProviderBodies.SERVER_ERROR);
			case 8 -> Reply.json(429, Map.of("retry-after", "0"), RATE_LIMIT);
			case 9 -> Reply.json(400, CONTEXT_TOO_LONG);
			default -> Reply.ok(FakeProviderBodies.OK);
		});
		// min-wait 0 believes the 429's "retry-after: 0": the scope is gated for 0 ms and
		// the next call reaches the provider (time stands still here; the default 100 ms
		// floor would gate it for default-wait and skip every later call).
		this.h.build((builder) -> builder.breaker(neverOpens())
			.retry(new RetrySettings(1, Duration.ZERO, Duration.ZERO, 0.1, Duration.ofSeconds(10), 3))
			.throttle(new ThrottleSettings(Duration.ofSeconds(5), Duration.ofSeconds(300), Duration.ZERO))
			// Time stands still: a call may not wait for the gate to pass.
			.pools(ReleaseWaitTests.noWait()), "primary");

		AtomicInteger succeeded = new AtomicInteger();
		AtomicInteger unavailable = new AtomicInteger();
		AtomicInteger rejected = new AtomicInteger();
		ExecutorService pool = Executors.newFixedThreadPool(8);
		List<Future<?>> workers = new ArrayList<>();
		for (int thread = 0; thread < 8; thread++) {
			workers.add(pool.submit(() -> {
				for (int i = 0; i < 1250; i++) {
					try {
						this.h.resilience.execute("chat", this.h::webClientCall).block(Duration.ofSeconds(30));
						succeeded.incrementAndGet();
					}
					catch (LlmUnavailableException ex) {
						unavailable.incrementAndGet();
					}
					catch (LlmRejectedException ex) {
						rejected.incrementAndGet();
					}
				}
			}));
		}
		for (Future<?> worker : workers) {
			worker.get(110, TimeUnit.SECONDS);
		}
		pool.shutdown();

		assertThat(succeeded.get() + unavailable.get() + rejected.get()).isEqualTo(10_000);
		assertThat(this.h.provider.requests("primary")).isEqualTo(10_000);
		assertThat(rejected.get()).isEqualTo(1_000);
		assertThat(unavailable.get()).isEqualTo(3_000);
		BreakerState metrics = this.h.resilience.state().target("primary").breaker();
		// 400s are ignored; 429s are successes (the account answered); 5xx are failures.
		assertThat(metrics.successfulCalls()).isEqualTo(7_000);
		assertThat(metrics.failedCalls()).isEqualTo(2_000);
		assertThat(metrics.bufferedCalls()).isEqualTo(9_000);
	}

	@Test
	void aHangTimesOutAsAvailabilityAndFailsOver() {
		this.h.provider.always("primary", Reply.hang());
		this.h.provider.always("secondary", Reply.ok(FakeProviderBodies.OK_SECONDARY));
		List<Verdict> verdicts = new CopyOnWriteArrayList<>();
		this.h.build((builder) -> builder.retry(oneAttempt()).observer(new CallObserver() {
			@Override
			public void onAttempt(String chain, Target target, Verdict verdict, long nanos) {
				verdicts.add(verdict);
			}
		}), "primary", "secondary");

		CompletableFuture<String> answer = this.h.resilience.execute("chat", this::hangAwareCall).toFuture();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.h.provider.requests("primary") == 1);
		this.h.time.advance(Duration.ofSeconds(29));
		assertThat(answer).isNotDone();
		this.h.time.advance(Duration.ofSeconds(1));
		assertThat(this.h.time.await(answer, this.h.inFlight::get)).isEqualTo(FakeProviderBodies.OK_SECONDARY);
		assertThat(verdicts.get(0).outcome()).isEqualTo(Outcome.AVAILABILITY);
		assertThat(verdicts.get(0).errorType()).contains("timeout");
	}

	@Test
	void aTimeoutFailsOverAtOnceWhenAnotherTargetExistsInsteadOfRetryingTheSlowOne() {
		this.h.provider.always("primary", Reply.hang());
		this.h.provider.always("secondary", Reply.ok(FakeProviderBodies.OK_SECONDARY));
		this.h.build((builder) -> builder.timeouts(TimeoutSettings.defaults().withAttempt(Duration.ofSeconds(10))),
				"primary", "secondary");

		CompletableFuture<String> answer = this.h.resilience
			.execute("chat", CallOptions.deadline(Duration.ofSeconds(20)), this::hangAwareCall)
			.toFuture();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.h.provider.requests("primary") == 1);
		this.h.time.advance(Duration.ofSeconds(10));
		assertThat(this.h.time.await(answer, this.h.inFlight::get)).isEqualTo(FakeProviderBodies.OK_SECONDARY);
		assertThat(this.h.provider.requests("primary")).isEqualTo(1);
		assertThat(this.h.time.elapsed()).isEqualTo(Duration.ofSeconds(10));
	}

	@Test
	void aTimeoutOfTheOnlyTargetIsStillRetried() {
		this.h.provider.script("primary", (n) -> (n == 1) ? Reply.hang() : Reply.ok(FakeProviderBodies.OK));
		this.h.build((builder) -> builder.timeouts(TimeoutSettings.defaults().withAttempt(Duration.ofSeconds(10))),
				"primary");

		// The hanging first attempt is not counted in flight; the retry is.
		CompletableFuture<String> answer = this.h.resilience.execute("chat",
				(attempt) -> (attempt.targetAttempt() == 1) ? hangAwareCall(attempt) : this.h.webClientCall(attempt))
			.toFuture();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.h.provider.requests("primary") == 1);
		this.h.time.advance(Duration.ofSeconds(10));
		assertThat(this.h.time.await(answer, this.h.inFlight::get)).isEqualTo(FakeProviderBodies.OK);
		assertThat(this.h.provider.requests("primary")).isEqualTo(2);
	}

	@Test
	void aBlockingCallThatHangsIsInterruptedAtItsTimeoutAndFailsOver() {
		this.h.provider.always("primary", Reply.hang());
		this.h.provider.always("secondary", Reply.ok(FakeProviderBodies.OK_SECONDARY));
		this.h.build((builder) -> builder.retry(oneAttempt()), "primary", "secondary");

		AtomicBoolean interruptLeaked = new AtomicBoolean();
		CompletableFuture<String> answer = CompletableFuture.supplyAsync(() -> {
			String result = this.h.resilience.call("chat", (attempt) -> {
				if (attempt.target().name().equals("primary")) {
					return this.h.restClient.post()
						.uri(attempt.target().baseUrl() + "/v1")
						.body("{}")
						.retrieve()
						.body(String.class);
				}
				return this.h.restClientCall(attempt);
			});
			interruptLeaked.set(Thread.currentThread().isInterrupted());
			return result;
		});
		await().atMost(Duration.ofSeconds(10)).until(() -> this.h.provider.requests("primary") == 1);
		this.h.time.advance(Duration.ofSeconds(30));
		assertThat(this.h.time.await(answer, this.h.inFlight::get, Duration.ofSeconds(10)))
			.isEqualTo(FakeProviderBodies.OK_SECONDARY);
		assertThat(interruptLeaked).isFalse();
		assertThat(this.h.resilience.state().target("primary").breaker().failedCalls()).isEqualTo(1);
	}

	@Test
	void blockingCallsFailOverAndRetryLikeReactiveOnes() {
		this.h.provider.script("primary",
				(n) -> (n <= 2) ? Reply.json(503, FakeProviderBodies.SERVER_ERROR) : Reply.ok(FakeProviderBodies.OK));
		this.h.build((builder) -> {
		}, "primary");
		assertThat(this.h.chatBlocking()).isEqualTo(FakeProviderBodies.OK);
		assertThat(this.h.provider.requests("primary")).isEqualTo(3);
	}

	@Test
	void theIdempotencyKeyIsTheSameForEveryAttemptAndTargetOfOneCall() {
		this.h.provider.always("primary", Reply.json(503, FakeProviderBodies.SERVER_ERROR));
		this.h.provider.always("secondary", Reply.ok(FakeProviderBodies.OK_SECONDARY));
		this.h.build((builder) -> {
		}, "primary", "secondary");

		this.h.chat();
		assertThat(this.h.idempotencyKeys).hasSize(4).containsOnly(this.h.idempotencyKeys.get(0));
		assertThat(this.h.provider.lastHeader("secondary", "Idempotency-Key"))
			.containsExactly(this.h.idempotencyKeys.get(0));
		this.h.chat();
		assertThat(this.h.idempotencyKeys.get(this.h.idempotencyKeys.size() - 1))
			.isNotEqualTo(this.h.idempotencyKeys.get(0));
	}

	@Test
	void aCancelledTrialGivesItsPermitBackSoThatTheNextCallCanTry() {
		AtomicInteger mode = new AtomicInteger();
		this.h.provider.script("primary", (n) -> switch (mode.get()) {
			case 0 -> Reply.json(503, FakeProviderBodies.SERVER_ERROR);
			case 1 -> Reply.hang();
			default -> Reply.ok(FakeProviderBodies.OK);
		});
		this.h.build((builder) -> builder.breaker(smallWindow()).retry(oneAttempt()), "primary");
		this.h.chatFailure();
		this.h.chatFailure();
		assertThat(this.h.resilience.breaker("primary").state()).isEqualTo(CircuitBreaker.State.OPEN);

		this.h.time.advance(Duration.ofSeconds(31));
		mode.set(1);
		Disposable trial = this.h.resilience.execute("chat", this::hangAwareCall).subscribe((value) -> {
		}, (error) -> {
		});
		await().atMost(Duration.ofSeconds(10)).until(() -> this.h.provider.requests("primary") == 3);
		assertThat(this.h.resilience.breaker("primary").state()).isEqualTo(CircuitBreaker.State.HALF_OPEN);
		trial.dispose();

		mode.set(2);
		assertThat(this.h.chat()).isEqualTo(FakeProviderBodies.OK);
		assertThat(this.h.resilience.breaker("primary").state()).isEqualTo(CircuitBreaker.State.CLOSED);
	}

	@Test
	void eachFailedTrialDoublesTheOpenDurationUpToItsMaximum() {
		this.h.provider.always("primary", Reply.json(503, FakeProviderBodies.SERVER_ERROR));
		this.h.build((builder) -> builder
			.breaker(new BreakerSettings(2, 2, 50, Duration.ofSeconds(10), 50, Duration.ofSeconds(30),
					Duration.ofSeconds(100), 1))
			.retry(oneAttempt()), "primary");
		this.h.chatFailure();
		this.h.chatFailure();
		for (int trial = 0; trial < 3; trial++) {
			StateChange last = this.h.events(StateChange.Kind.BREAKER_OPENED).get(trial);
			this.h.time.advanceTo(last.until().plusMillis(1));
			this.h.chatFailure();
		}
		assertThat(this.h.events(StateChange.Kind.BREAKER_OPENED))
			.extracting((opened) -> Duration.between(opened.at(), opened.until()))
			.containsExactly(Duration.ofSeconds(30), Duration.ofSeconds(60), Duration.ofSeconds(100),
					Duration.ofSeconds(100));
		assertThat(this.h.provider.requests("primary")).isEqualTo(2 + 3);
	}

	@Test
	void targetsOfOneFailureDomainShareOneBreaker() {
		Target a = this.h.target("a", "acct-a");
		Target b = new Target("b", "openai", "acct-b", "gpt-4o", "region-a", URI.create(this.h.provider.baseUrl("b")),
				null);
		this.h.provider.always("a", Reply.json(503, FakeProviderBodies.SERVER_ERROR));
		this.h.provider.always("b", Reply.json(503, FakeProviderBodies.SERVER_ERROR));
		this.h.build(List.of(a, b), (builder) -> builder.breaker(smallWindow()).retry(oneAttempt()));

		Breaker shared = this.h.resilience.breaker("a");
		assertThat(this.h.resilience.breaker("b")).isSameAs(shared);
		assertThat(shared.domain()).isEqualTo("openai/gpt-4o/region-a");
		this.h.chatFailure();
		assertThat(shared.state()).isEqualTo(CircuitBreaker.State.OPEN);
		assertThat(this.h.provider.totalRequests()).isEqualTo(2);
	}

	@Test
	void anUnknownChainIsAnError() {
		this.h.build((builder) -> {
		}, "primary");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> this.h.resilience.execute("nope", this.h::webClientCall).block())
			.withMessageContaining("'nope'")
			.withMessageContaining("[chat]");
	}

	private Mono<String> hangAwareCall(Attempt attempt) {
		// A hanging request must not hold virtual time still: it is not counted in
		// flight.
		if (attempt.target().name().equals("primary")) {
			return this.h.webClient.post()
				.uri(attempt.target().baseUrl() + "/v1")
				.bodyValue("{}")
				.retrieve()
				.bodyToMono(String.class);
		}
		return this.h.webClientCall(attempt);
	}

	private static BreakerSettings neverOpens() {
		return new BreakerSettings(10_000, 10_000, 100, Duration.ofSeconds(10), 100, Duration.ofSeconds(30),
				Duration.ofMinutes(15), 1);
	}

	private static BreakerSettings smallWindow() {
		return new BreakerSettings(2, 2, 50, Duration.ofSeconds(10), 50, Duration.ofSeconds(30), Duration.ofMinutes(15),
				1);
	}

	private static RetrySettings oneAttempt() {
		return new RetrySettings(1, Duration.ofMillis(500), Duration.ofSeconds(30), 0.1, Duration.ofSeconds(10), 3);
	}

	/** Reads the harness clock (a named helper keeps the observer lambdas short). */
	static final class EngineHarnessTime {

		static Instant now(EngineHarness harness) {
			return harness.time.instant();
		}

	}

}
