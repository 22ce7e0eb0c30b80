package io.github.llmresilience.breaker;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.github.llmresilience.test.ManualTime;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreaker.State;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.core.EventProcessor;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link PublishingCircuitBreaker} tells what Resilience4j's own transition and reset
 * events would, without a consumer on Resilience4j's publisher: the transitions asked
 * for, the moves Resilience4j makes inside calls, each change once whatever the threads,
 * and a steady call takes no lock.
 */
class PublishingCircuitBreakerTests {

	private final ManualTime time = new ManualTime();

	private final Object lock = new Object();

	private final List<String> told = new CopyOnWriteArrayList<>();

	private final CircuitBreaker resilience4j = CircuitBreaker.of("ours", config(this.time));

	private final PublishingCircuitBreaker breaker = new PublishingCircuitBreaker(this.resilience4j, this.lock,
			listener(this.told));

	@Test
	void tellsWhatResilience4jsOwnEventsTell() {
		ManualTime referenceTime = new ManualTime();
		CircuitBreaker reference = CircuitBreaker.of("reference", config(referenceTime));
		List<String> published = new ArrayList<>();
		reference.getEventPublisher()
			.onStateTransition((event) -> published
				.add(event.getStateTransition().getFromState() + " -> " + event.getStateTransition().getToState()))
			.onReset((event) -> published.add("reset"));

		script(reference, referenceTime);
		script(this.breaker, this.time);

		assertThat(this.told).isEqualTo(published)
			.containsExactly("CLOSED -> OPEN", "OPEN -> HALF_OPEN", "HALF_OPEN -> OPEN", "OPEN -> HALF_OPEN",
					"HALF_OPEN -> CLOSED", "CLOSED -> FORCED_OPEN", "FORCED_OPEN -> CLOSED", "CLOSED -> DISABLED",
					"DISABLED -> CLOSED", "reset", "reset", "CLOSED -> OPEN", "OPEN -> HALF_OPEN",
					"HALF_OPEN -> CLOSED", "CLOSED -> METRICS_ONLY", "METRICS_ONLY -> CLOSED", "reset");
	}

	/** Every move a breaker makes. */
	private static void script(CircuitBreaker breaker, ManualTime time) {
		// Two failures open it; a call in the open time is refused.
		for (int i = 0; i < 2; i++) {
			assertThat(breaker.tryAcquirePermission()).isTrue();
			breaker.onError(1, TimeUnit.MILLISECONDS, new IOException("503"));
		}
		assertThat(breaker.tryAcquirePermission()).isFalse();
		// After it, a permit makes it half-open; a failed trial opens it again.
		time.advance(Duration.ofSeconds(2));
		assertThat(breaker.tryAcquirePermission()).isTrue();
		breaker.onError(1, TimeUnit.MILLISECONDS, new IOException("503"));
		// A trial that passes closes it.
		time.advance(Duration.ofSeconds(2));
		breaker.acquirePermission();
		breaker.onSuccess(1, TimeUnit.MILLISECONDS);
		// The transitions asked for, repeated ones told once.
		breaker.transitionToForcedOpenState();
		breaker.transitionToForcedOpenState();
		breaker.transitionToClosedState();
		breaker.transitionToClosedState();
		breaker.transitionToDisabledState();
		breaker.reset();
		breaker.reset();
		breaker.transitionToOpenState();
		breaker.transitionToOpenStateFor(Duration.ofSeconds(5));
		breaker.transitionToOpenStateUntil(time.instant().plusSeconds(5));
		breaker.transitionToHalfOpenState();
		breaker.acquirePermission();
		try {
			breaker.acquirePermission();
		}
		catch (CallNotPermittedException ex) {
			// The one trial is taken.
		}
		breaker.onResult(1, TimeUnit.MILLISECONDS, "answer");
		breaker.transitionToMetricsOnlyState();
		breaker.releasePermission();
		breaker.reset();
	}

	@Test
	void changesMadeInsideCallsAreToldByTheCallThatSeesThem() {
		this.resilience4j.transitionToOpenState();
		assertThat(this.told).isEmpty();
		this.breaker.releasePermission();
		assertThat(this.told).isEmpty();

		assertThat(this.breaker.tryAcquirePermission()).isFalse();
		assertThat(this.told).containsExactly("CLOSED -> OPEN");
	}

	@Test
	void aChangeSeenLateIsToldStepByStepSoThatNoOpeningGoesUntold() {
		this.resilience4j.transitionToOpenState();
		this.resilience4j.transitionToHalfOpenState();
		assertThat(this.breaker.tryAcquirePermission()).isTrue();
		assertThat(this.told).containsExactly("CLOSED -> OPEN", "OPEN -> HALF_OPEN");

		this.told.clear();
		this.breaker.transitionToOpenState();
		this.resilience4j.transitionToHalfOpenState();
		this.resilience4j.onSuccess(1, TimeUnit.MILLISECONDS);
		assertThat(this.resilience4j.getState()).isEqualTo(State.CLOSED);
		assertThat(this.breaker.tryAcquirePermission()).isTrue();
		assertThat(this.told).containsExactly("HALF_OPEN -> OPEN", "OPEN -> HALF_OPEN", "HALF_OPEN -> CLOSED");
	}

	@Test
	void changesAreToldUnderTheOwnersLock() {
		List<Boolean> heldLock = new CopyOnWriteArrayList<>();
		PublishingCircuitBreaker breaker = new PublishingCircuitBreaker(this.resilience4j, this.lock,
				listener((change) -> heldLock.add(Thread.holdsLock(this.lock))));
		breaker.transitionToForcedOpenState();
		breaker.reset();
		this.resilience4j.transitionToOpenState();
		breaker.tryAcquirePermission();
		assertThat(heldLock).containsExactly(true, true, true, true);
	}

	@Test
	void aListenerThatFailsFailsNoCall() {
		List<String> after = new CopyOnWriteArrayList<>();
		PublishingCircuitBreaker breaker = new PublishingCircuitBreaker(this.resilience4j, this.lock,
				listener((change) -> {
					after.add(change);
					throw new IllegalStateException("listener");
				}));
		breaker.transitionToForcedOpenState();
		breaker.reset();
		assertThat(after).containsExactly("CLOSED -> FORCED_OPEN", "FORCED_OPEN -> CLOSED", "reset");
		assertThat(breaker.getState()).isEqualTo(State.CLOSED);
	}

	@Test
	void twoThreadsThatSeeOneChangeTellItOnce() throws Exception {
		ExecutorService threads = Executors.newFixedThreadPool(2);
		try {
			int rounds = 200;
			for (int round = 0; round < rounds; round++) {
				// A move neither thread told yet, which both calls then see.
				if (round % 2 == 0) {
					this.resilience4j.transitionToForcedOpenState();
				}
				else {
					this.resilience4j.transitionToClosedState();
				}
				CyclicBarrier start = new CyclicBarrier(2);
				List<Future<Boolean>> calls = new ArrayList<>();
				for (int thread = 0; thread < 2; thread++) {
					calls.add(threads.submit(() -> {
						start.await(10, TimeUnit.SECONDS);
						return this.breaker.tryAcquirePermission();
					}));
				}
				for (Future<Boolean> call : calls) {
					call.get(10, TimeUnit.SECONDS);
				}
				assertThat(this.told).hasSize(round + 1);
			}
			assertThat(this.told).first().isEqualTo("CLOSED -> FORCED_OPEN");
			assertThat(this.told).element(1).isEqualTo("FORCED_OPEN -> CLOSED");
		}
		finally {
			threads.shutdownNow();
		}
	}

	@Test
	void aSteadyCallTakesNoLockWhileAChangeIsTold() throws Exception {
		CountDownLatch telling = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		PublishingCircuitBreaker breaker = new PublishingCircuitBreaker(this.resilience4j, this.lock,
				listener((change) -> {
					telling.countDown();
					await(release);
				}));
		CompletableFuture<Void> move = CompletableFuture.runAsync(breaker::transitionToDisabledState);
		try {
			assertThat(telling.await(10, TimeUnit.SECONDS)).isTrue();
			// The lock is held by the thread telling the change; this call passes by it.
			CompletableFuture.runAsync(() -> {
				assertThat(breaker.tryAcquirePermission()).isTrue();
				breaker.onSuccess(1, TimeUnit.MILLISECONDS);
			}).get(10, TimeUnit.SECONDS);
		}
		finally {
			release.countDown();
		}
		move.get(10, TimeUnit.SECONDS);
	}

	@Test
	void registersNoConsumerOnResilience4jsPublisher() {
		script(this.breaker, this.time);
		assertThat(((EventProcessor<?>) this.resilience4j.getEventPublisher()).hasConsumers()).isFalse();
		assertThat(this.breaker.getEventPublisher()).isSameAs(this.resilience4j.getEventPublisher());
	}

	private static CircuitBreakerConfig config(Clock clock) {
		return CircuitBreakerConfig.custom()
			.clock(clock)
			.slidingWindow(2, 2, CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
			.failureRateThreshold(50)
			.permittedNumberOfCallsInHalfOpenState(1)
			.waitDurationInOpenState(Duration.ofSeconds(1))
			.build();
	}

	private static PublishingCircuitBreaker.Listener listener(List<String> told) {
		return listener(told::add);
	}

	private static PublishingCircuitBreaker.Listener listener(Consumer<String> told) {
		return new PublishingCircuitBreaker.Listener() {

			@Override
			public void transitioned(State from, State to) {
				told.accept(from + " -> " + to);
			}

			@Override
			public void reset() {
				told.accept("reset");
			}

		};
	}

	private static void await(CountDownLatch latch) {
		try {
			latch.await(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
