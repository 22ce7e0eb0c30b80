package io.github.llmresilience.execute;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;

import io.github.llmresilience.breaker.Breaker;
import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.classify.ClassifierSettings;
import io.github.llmresilience.classify.ProviderClassifiers;
import io.github.llmresilience.classify.ProviderErrorClassifier;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.UnclassifiedListener;
import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.retry.RetrySettings;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A breaker permit taken for an attempt is always settled (recorded or given back),
 * whatever the call function, a classifier or a listener throws; a half-open breaker
 * whose trial never reports opens again after its safety limit; a half-open breaker with
 * no trial free is not reported usable.
 */
class PermitSettlementTests {

	private final EngineHarness h = new EngineHarness();

	@AfterEach
	void close() {
		this.h.close();
	}

	@Test
	void aReactiveCallFunctionThatThrowsACheckedExceptionDuringTheTrialDoesNotWedgeTheBreaker() {
		AtomicBoolean down = new AtomicBoolean(true);
		openThenHalfOpen(down, (builder) -> {
		});

		Throwable error = catchFailure(this.h.resilience.execute("chat",
				(attempt) -> sneakyThrow(new URISyntaxException("::", "caller's own checked exception"))));
		assertThat(error).isInstanceOf(URISyntaxException.class);
		assertTwentyHealthyCallsAreServed();
	}

	@Test
	void aReactiveCallFunctionThatThrowsAnAssertionErrorDuringTheTrialDoesNotWedgeTheBreaker() {
		AtomicBoolean down = new AtomicBoolean(true);
		openThenHalfOpen(down, (builder) -> {
		});

		Throwable error = catchFailure(this.h.resilience.execute("chat", (attempt) -> {
			throw new AssertionError("caller's assertion");
		}));
		assertThat(error).isInstanceOf(AssertionError.class);
		assertTwentyHealthyCallsAreServed();
	}

	@Test
	void aStreamingCallFunctionThatThrowsAnErrorDuringTheTrialDoesNotWedgeTheBreaker() {
		AtomicBoolean down = new AtomicBoolean(true);
		openThenHalfOpen(down, (builder) -> {
		});

		CompletableFuture<List<String>> stream = this.h.resilience.stream("chat", (attempt) -> {
			throw new AssertionError("caller's assertion");
		}).cast(String.class).collectList().toFuture();
		assertThat(stream).failsWithin(Duration.ofSeconds(10))
			.withThrowableThat()
			.havingRootCause()
			.isInstanceOf(AssertionError.class);
		assertTwentyHealthyCallsAreServed();
	}

	@Test
	void aClassifierBeanThatThrowsFallsBackToTheStatusAndIsReportedAndTheBreakerIsNotWedged() {
		List<String> reported = new CopyOnWriteArrayList<>();
		AtomicBoolean down = new AtomicBoolean(true);
		openThenHalfOpen(down, (builder) -> builder.classifiers(classifiers((response) -> {
			throw new IllegalStateException("classifier bug");
		})).unclassifiedListener((provider, status, type) -> reported.add(provider + "/" + status + "/" + type)));
		assertThat(reported).contains("openai/503/classifier_error");

		down.set(false);
		assertTwentyHealthyCallsAreServed();
	}

	@Test
	void aClassifierBeanThatReturnsNullFallsBackToTheStatus() {
		List<String> reported = new CopyOnWriteArrayList<>();
		this.h.provider.always("primary", Reply.json(503, FakeProviderBodies.SERVER_ERROR));
		this.h.provider.always("secondary", Reply.ok(FakeProviderBodies.OK_SECONDARY));
		this.h.build((builder) -> builder.retry(oneAttempt())
			.classifiers(classifiers((response) -> null))
			.unclassifiedListener((provider, status, type) -> reported.add(provider + "/" + status + "/" + type)),
				"primary", "secondary");

		assertThat(this.h.chat()).isEqualTo(FakeProviderBodies.OK_SECONDARY);
		assertThat(failures("primary")).isEqualTo(1);
		assertThat(reported).containsExactly("openai/503/classifier_error");
	}

	@Test
	void anUnclassifiedListenerThatThrowsDoesNotWedgeTheBreakerOnTheReactivePath() {
		AtomicBoolean down = new AtomicBoolean(true);
		openThenHalfOpen(down, (builder) -> builder.unclassifiedListener((provider, status, type) -> {
			throw new IllegalStateException("listener bug");
		}));

		// The trial fails with an exception no extractor knows: the listener is told and
		// throws.
		Throwable error = catchFailure(this.h.resilience.execute("chat",
				(attempt) -> Mono.error(new IllegalArgumentException("mapping bug"))));
		assertThat(error).isInstanceOf(IllegalArgumentException.class).hasMessage("mapping bug");
		assertTwentyHealthyCallsAreServed();
	}

	@Test
	void anUnclassifiedListenerThatThrowsDoesNotWedgeTheBreakerOnTheBlockingPath() {
		AtomicBoolean down = new AtomicBoolean(true);
		openThenHalfOpen(down, (builder) -> builder.unclassifiedListener((provider, status, type) -> {
			throw new IllegalStateException("listener bug");
		}));

		CompletableFuture<String> trial = CompletableFuture
			.supplyAsync(() -> this.h.resilience.call("chat", (attempt) -> {
				throw new IllegalArgumentException("mapping bug");
			}));
		assertThat(trial).failsWithin(Duration.ofSeconds(10))
			.withThrowableThat()
			.havingRootCause()
			.isInstanceOf(IllegalArgumentException.class)
			.withMessage("mapping bug");
		assertThat(breaker().state()).isEqualTo(CircuitBreaker.State.HALF_OPEN);
		assertThat(breaker().isUsable()).isTrue();
		down.set(false);
		for (int i = 0; i < 20; i++) {
			assertThat(this.h.chatBlocking()).isEqualTo(FakeProviderBodies.OK);
		}
		assertThat(breaker().state()).isEqualTo(CircuitBreaker.State.CLOSED);
	}

	@Test
	void aHalfOpenBreakerWhoseTrialIsInFlightIsNotUsableAndTheChainSaysWhenToComeBack() {
		AtomicBoolean down = new AtomicBoolean(true);
		openThenHalfOpen(down, (builder) -> {
		});
		assertThat(breaker().isUsable()).isTrue();

		assertThat(breaker().tryAcquire()).isTrue();
		assertThat(breaker().state()).isEqualTo(CircuitBreaker.State.HALF_OPEN);
		assertThat(breaker().isUsable()).isFalse();
		assertThat(this.h.resilience.isUsable("primary")).isFalse();
		assertThat(this.h.resilience.availableAt("chat")).isAfter(this.h.time.instant());

		breaker().release();
		assertThat(breaker().isUsable()).isTrue();
	}

	@Test
	void aTrialThatNeverReportsCountsAsFailedAfterTheHalfOpenTimeoutAndTheNextTrialServes() {
		AtomicBoolean down = new AtomicBoolean(true);
		openThenHalfOpen(down, (builder) -> {
		});
		// A trial whose caller died: its permit is taken and never settled.
		assertThat(breaker().tryAcquire()).isTrue();
		down.set(false);

		this.h.time.advance(BreakerSettings.DEFAULT_HALF_OPEN_TIMEOUT.minusSeconds(1));
		assertThat(this.h.chatFailure()).isInstanceOf(LlmUnavailableException.class);
		assertThat(breaker().state()).isEqualTo(CircuitBreaker.State.HALF_OPEN);

		this.h.time.advance(Duration.ofSeconds(1));
		assertThat(this.h.chatFailure()).isInstanceOf(LlmUnavailableException.class);
		assertThat(breaker().state()).isEqualTo(CircuitBreaker.State.OPEN);

		// Counted as a failed trial: the open duration doubles, then one trial closes it.
		this.h.time.advance(Duration.ofSeconds(61));
		assertThat(this.h.chat()).isEqualTo(FakeProviderBodies.OK);
		assertThat(breaker().state()).isEqualTo(CircuitBreaker.State.CLOSED);
	}

	@Test
	void onTheSystemClockATrialThatNeverReportsIsGivenUpAfterTheHalfOpenTimeout() {
		try (FakeProvider provider = new FakeProvider()) {
			provider.always("primary", Reply.json(503, FakeProviderBodies.SERVER_ERROR));
			LlmResilience resilience = LlmResilience.builder()
				.clock(Clock.systemUTC())
				.target(new Target("primary", "openai", "primary", "gpt-4o", "us",
						URI.create(provider.baseUrl("primary")), null))
				.chain("chat", "primary")
				.breaker(smallWindow().withHalfOpenTimeout(Duration.ofMillis(300)))
				.retry(oneAttempt())
				.build();
			Breaker breaker = resilience.breaker("primary");
			breaker.circuitBreaker().transitionToOpenState();
			breaker.circuitBreaker().transitionToHalfOpenState();
			assertThat(breaker.tryAcquire()).isTrue();
			long start = System.nanoTime();
			await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() -> {
				breaker.tryAcquire();
				return breaker.state() == CircuitBreaker.State.OPEN;
			});
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(250));
		}
	}

	private void openThenHalfOpen(AtomicBoolean down, Consumer<LlmResilienceBuilder> customizer) {
		this.h.provider.script("primary",
				(n) -> down.get() ? Reply.json(503, FakeProviderBodies.SERVER_ERROR) : Reply.ok(FakeProviderBodies.OK));
		this.h.build((builder) -> customizer.accept(builder.breaker(smallWindow()).retry(oneAttempt())), "primary");
		this.h.chatFailure();
		this.h.chatFailure();
		assertThat(breaker().state()).isEqualTo(CircuitBreaker.State.OPEN);
		this.h.time.advance(Duration.ofSeconds(31));
	}

	private void assertTwentyHealthyCallsAreServed() {
		this.h.provider.script("primary", (n) -> Reply.ok(FakeProviderBodies.OK));
		int served = 0;
		for (int i = 0; i < 20; i++) {
			if (FakeProviderBodies.OK.equals(this.h.chat())) {
				served++;
			}
		}
		assertThat(served).isEqualTo(20);
		assertThat(breaker().state()).isEqualTo(CircuitBreaker.State.CLOSED);
	}

	private Breaker breaker() {
		return this.h.resilience.breaker("primary");
	}

	private int failures(String target) {
		return this.h.resilience.state().target(target).breaker().failedCalls();
	}

	private Throwable catchFailure(Mono<?> call) {
		CompletableFuture<?> future = call.toFuture();
		try {
			this.h.time.await(future, this.h.inFlight::get);
		}
		catch (Throwable ex) {
			// await unwraps what it can; the future keeps the original.
		}
		assertThat(future).isCompletedExceptionally();
		return future.handle((value, error) -> (error instanceof CompletionException) ? error.getCause() : error)
			.join();
	}

	private ProviderClassifiers classifiers(Function<ProviderResponse, Verdict> classify) {
		ProviderErrorClassifier custom = new ProviderErrorClassifier() {

			@Override
			public String provider() {
				return "openai";
			}

			@Override
			public Verdict classify(ProviderResponse response) {
				return classify.apply(response);
			}

		};
		return new ProviderClassifiers(List.of(custom), new ClassifierSettings(this.h.time,
				ClassifierSettings.DEFAULT_QUOTA_THRESHOLD, UnclassifiedListener.NONE));
	}

	@SuppressWarnings("unchecked")
	private static <T, E extends Throwable> T sneakyThrow(Throwable error) throws E {
		throw (E) error;
	}

	static BreakerSettings smallWindow() {
		return new BreakerSettings(2, 2, 50, Duration.ofSeconds(10), 50, Duration.ofSeconds(30), Duration.ofMinutes(15),
				1);
	}

	static RetrySettings oneAttempt() {
		return new RetrySettings(1, Duration.ofMillis(500), Duration.ofSeconds(30), 0.1, Duration.ofSeconds(10), 3);
	}

}
