package io.github.llmresilience.execute;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.llmresilience.test.ManualTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A reactive attempt's one operator ({@link TimedAttempt}): its timeout fails over, a
 * ready answer arms no alarm, an answer disarms it, the subscriber's cancellation gives
 * the permit back unrecorded, and on the real clock and the coalescing timer concurrent
 * calls time out only when their own attempt hangs.
 */
class TimedAttemptTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private final ManualTime time = new ManualTime();

	private final RealClockCallers real = new RealClockCallers();

	@AfterEach
	void stop() {
		this.real.close();
	}

	@Test
	void anAttemptWithoutASignalTimesOutAtItsTimeoutAndFailsOver() {
		LlmResilience resilience = engine(this.time, this.time);
		CompletableFuture<String> answer = resilience.execute("chat",
				(attempt) -> attempt.target().name().equals("primary") ? Mono.<String>never() : Mono.just("secondary"))
			.toFuture();
		this.time.advance(TIMEOUT.minusMillis(1));
		assertThat(answer).isNotDone();
		this.time.advance(Duration.ofMillis(1));
		assertThat(answer).isCompletedWithValue("secondary");
		assertThat(resilience.state().target("primary").breaker().failedCalls()).isOne();
	}

	@Test
	void aReadyAnswerArmsNoAlarmAndALaterOneDisarmsIt() {
		LlmResilience resilience = engine(this.time, this.time);
		assertThat(resilience.execute("chat", (attempt) -> Mono.just("ready")).block()).isEqualTo("ready");
		assertThat(this.time.pendingTimers()).isZero();

		Sinks.One<String> later = Sinks.one();
		CompletableFuture<String> answer = resilience.execute("chat", (attempt) -> later.asMono()).toFuture();
		assertThat(this.time.pendingTimers()).as("the alarm, armed").isOne();
		later.tryEmitValue("later");
		assertThat(answer).isCompletedWithValue("later");
		assertThat(this.time.pendingTimers()).as("disarmed by the answer").isZero();
		assertThat(resilience.state().target("primary").breaker().successfulCalls()).isEqualTo(2);
	}

	@Test
	void anEmptyAnswerIsAnAnswer() {
		LlmResilience resilience = engine(this.time, this.time);
		assertThat(resilience.execute("chat", (attempt) -> Mono.<String>empty()).blockOptional()).isEmpty();
		assertThat(resilience.state().target("primary").breaker().successfulCalls()).isOne();
	}

	@Test
	void theSubscribersCancellationGivesThePermitBackUnrecordedAndDisarms() {
		LlmResilience resilience = engine(this.time, this.time);
		resilience.execute("chat", (attempt) -> Mono.<String>never()).subscribe().dispose();
		assertThat(this.time.pendingTimers()).isZero();
		assertThat(resilience.state().target("primary").breaker().failedCalls()).isZero();
		assertThat(resilience.state().target("primary").breaker().successfulCalls()).isZero();
		// The permit came back: the next call is served.
		assertThat(resilience.execute("chat", (attempt) -> Mono.just("ok")).block()).isEqualTo("ok");
	}

	@Test
	void onTheSystemClockConcurrentCallsTimeOutOnlyWhenTheirOwnAttemptHangs() throws Exception {
		Duration timeout = Duration.ofMillis(200);
		LlmResilience resilience = this.real.engine(timeout);
		long start = System.nanoTime();
		assertThat(resilience.execute("chat",
				(attempt) -> attempt.target().name().equals("primary") ? Mono.<String>never() : Mono.just("secondary"))
			.block(Duration.ofSeconds(10))).isEqualTo("secondary");
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(timeout.minusMillis(20),
				Duration.ofSeconds(10));

		AtomicInteger served = new AtomicInteger();
		AtomicInteger failedOver = new AtomicInteger();
		List<Future<?>> runs = new ArrayList<>();
		for (int thread = 0; thread < 8; thread++) {
			int id = thread;
			runs.add(this.real.callers.submit(() -> {
				for (int i = 0; i < 200; i++) {
					boolean hangs = (i % 50) == id;
					String answer = resilience
						.execute("chat",
								(attempt) -> (hangs && attempt.target().name().equals("primary")) ? Mono.<String>never()
										: Mono.fromSupplier(() -> attempt.target().name()).publishOn(this.real.timer))
						.block(Duration.ofSeconds(10));
					served.incrementAndGet();
					if ("secondary".equals(answer)) {
						failedOver.incrementAndGet();
					}
				}
			}));
		}
		for (Future<?> run : runs) {
			run.get(60, TimeUnit.SECONDS);
		}
		assertThat(served).hasValue(1600);
		// Four hangs per thread; an open breaker may send a few more to the secondary.
		assertThat(failedOver.get()).isGreaterThanOrEqualTo(32);
	}

	private static LlmResilience engine(Clock clock, ManualTime scheduler) {
		return RealClockCallers.engine(clock, scheduler, TIMEOUT);
	}

}
