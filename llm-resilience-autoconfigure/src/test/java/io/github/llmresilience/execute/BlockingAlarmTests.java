package io.github.llmresilience.execute;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A blocking attempt's timeout on the real clock and the coalescing timer (the default),
 * where each calling thread's alarm is armed and disarmed in place: a hanging attempt is
 * interrupted at its timeout and fails over, a blocking call made inside another's call
 * function keeps both timeouts, and concurrent callers never interrupt each other.
 */
class BlockingAlarmTests {

	private static final Duration TIMEOUT = Duration.ofMillis(200);

	private final RealClockCallers real = new RealClockCallers();

	@AfterEach
	void stop() {
		this.real.close();
	}

	@Test
	void aHangingAttemptIsInterruptedAtItsTimeoutAndFailsOverWithoutLeakingTheInterrupt() {
		LlmResilience resilience = engine();
		long start = System.nanoTime();
		String answer = resilience.call("chat", (attempt) -> attempt.target().name().equals("primary") ? hang() : "ok");
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		assertThat(answer).isEqualTo("ok");
		assertThat(took).isBetween(TIMEOUT.minusMillis(20), Duration.ofSeconds(10));
		assertThat(Thread.currentThread().isInterrupted()).isFalse();
		assertThat(resilience.state().target("primary").breaker().failedCalls()).isEqualTo(1);
	}

	@Test
	void aBlockingCallInsideAnotherKeepsBothTimeouts() {
		LlmResilience resilience = engine();
		AtomicInteger innerFailures = new AtomicInteger();
		// The outer call's primary makes a call of its own, with a shorter deadline, that
		// hangs: the inner call's alarm fires and it fails; then the outer primary hangs
		// in turn and its own alarm, armed before the inner call, still fires.
		String answer = resilience.call("chat", (outer) -> {
			if (!outer.target().name().equals("primary")) {
				return "outer ok";
			}
			try {
				resilience.callOnTarget("primary", CallOptions.deadline(TIMEOUT.dividedBy(4)), (inner) -> hang());
			}
			catch (LlmUnavailableException ex) {
				innerFailures.incrementAndGet();
			}
			return hang();
		});
		assertThat(answer).isEqualTo("outer ok");
		assertThat(innerFailures).hasValue(1);
		assertThat(Thread.currentThread().isInterrupted()).isFalse();
	}

	@Test
	void concurrentCallersAreInterruptedOnlyWhenTheirOwnAttemptHangs() throws Exception {
		LlmResilience resilience = engine();
		AtomicInteger served = new AtomicInteger();
		AtomicInteger failedOver = new AtomicInteger();
		AtomicInteger wronglyInterrupted = new AtomicInteger();
		List<Future<?>> runs = new ArrayList<>();
		for (int thread = 0; thread < 8; thread++) {
			int id = thread;
			runs.add(this.real.callers.submit(() -> {
				for (int i = 0; i < 200; i++) {
					boolean hangs = (i % 50) == id;
					String answer = resilience.call("chat", (attempt) -> {
						if (hangs && attempt.target().name().equals("primary")) {
							return hang();
						}
						if (Thread.currentThread().isInterrupted()) {
							wronglyInterrupted.incrementAndGet();
						}
						return attempt.target().name();
					});
					served.incrementAndGet();
					if (answer.equals("secondary")) {
						failedOver.incrementAndGet();
					}
					if (Thread.currentThread().isInterrupted()) {
						wronglyInterrupted.incrementAndGet();
					}
				}
			}));
		}
		for (Future<?> run : runs) {
			run.get(60, TimeUnit.SECONDS);
		}
		assertThat(served).hasValue(1600);
		// Each thread hangs on call id, id + 50, id + 100 and id + 150: four each. A
		// hanging primary may also open its breaker, which sends a few more calls to the
		// secondary; none may be lost or interrupted.
		assertThat(failedOver.get()).isGreaterThanOrEqualTo(32);
		assertThat(wronglyInterrupted).hasValue(0);
	}

	@Test
	void withoutAHangNoAlarmFires() {
		LlmResilience resilience = engine();
		for (int i = 0; i < 1_000; i++) {
			String answer = resilience.call("chat", (attempt) -> {
				assertThat(Thread.currentThread().isInterrupted()).isFalse();
				return attempt.target().name();
			});
			assertThat(answer).isEqualTo("primary");
		}
		assertThat(resilience.state().target("primary").breaker().failedCalls()).isZero();
	}

	@Test
	void anInterruptOfTheCallerItselfIsACancellationNotATimeout() {
		LlmResilience resilience = engine();
		assertThatExceptionOfType(java.util.concurrent.CancellationException.class)
			.isThrownBy(() -> resilience.call("chat", (attempt) -> {
				Thread.currentThread().interrupt();
				return hang();
			}));
		assertThat(Thread.interrupted()).as("the caller's interrupt is kept").isTrue();
		assertThat(resilience.state().target("primary").breaker().failedCalls()).isZero();
	}

	private LlmResilience engine() {
		return this.real.engine(TIMEOUT);
	}

	/** Block until interrupted, as an HTTP client waiting for an answer does. */
	private static String hang() throws InterruptedException {
		new CountDownLatch(1).await();
		throw new AssertionError("unreachable");
	}

}
