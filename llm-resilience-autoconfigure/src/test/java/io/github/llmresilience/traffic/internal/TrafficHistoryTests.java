package io.github.llmresilience.traffic.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.execute.ChainStep.Skip;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.test.ManualTime;
import io.github.llmresilience.traffic.TrafficHistory;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A {@link TrafficHistory} counts, per target and per second of the injected clock,
 * requests, failures, rejections and fail-fasts; it forgets a second once the span has
 * passed it, and a second nobody touched counts zero.
 */
class TrafficHistoryTests {

	private static final Target PRIMARY = Target.of("primary", "openai");

	private static final Target SECONDARY = Target.of("secondary", "anthropic");

	private final ManualTime time = new ManualTime();

	private final TrafficHistory traffic = new TrafficHistory(this.time, Duration.ofSeconds(10));

	@Test
	void countsEachKindOfEventInItsSecondPerTarget() {
		this.traffic.onAttempt("chat", PRIMARY, Verdict.success(), 1);
		this.traffic.onAttempt("chat", PRIMARY, Verdict.of(Outcome.AVAILABILITY), 1);
		this.traffic.onAttempt("chat", PRIMARY, Verdict.of(Outcome.THROTTLED), 1);
		this.traffic.onAttempt("chat", PRIMARY, Verdict.of(Outcome.REQUEST), 1);
		this.traffic.onSkipped("chat", PRIMARY, Skip.BREAKER_OPEN);
		this.time.advance(Duration.ofSeconds(1));
		this.traffic.onAttempt("chat", SECONDARY, Verdict.success(), 1);
		this.traffic.onSkipped("chat", PRIMARY, Skip.SCOPE_GATED);

		TrafficHistory.Window primary = this.traffic.window("primary", this.time.instant());
		assertThat(primary.from()).isEqualTo(this.time.instant().minusSeconds(9));
		assertThat(primary.requests()).hasSize(10).endsWith(4, 0);
		assertThat(primary.failures()).endsWith(2, 0);
		assertThat(primary.rejections()).endsWith(1, 0);
		assertThat(primary.failFasts()).endsWith(1, 1);
		TrafficHistory.Window secondary = this.traffic.window("secondary", this.time.instant());
		assertThat(secondary.requests()).endsWith(0, 1);
		assertThat(IntStream.of(secondary.failures()).sum()).isZero();
	}

	@Test
	void aSecondLeavesTheWindowWhenTheSpanHasPassedAndItsSlotIsReused() {
		this.traffic.onAttempt("chat", PRIMARY, Verdict.success(), 1);
		this.time.advance(Duration.ofSeconds(9));
		assertThat(this.traffic.window("primary", this.time.instant()).requests()[0]).isEqualTo(1);

		this.time.advance(Duration.ofSeconds(1));
		assertThat(IntStream.of(this.traffic.window("primary", this.time.instant()).requests()).sum()).isZero();

		// The same slot, ten seconds on: the old count is gone, the new one counts alone.
		this.traffic.onAttempt("chat", PRIMARY, Verdict.of(Outcome.AVAILABILITY), 1);
		TrafficHistory.Window window = this.traffic.window("primary", this.time.instant());
		assertThat(window.requests()).endsWith(1);
		assertThat(IntStream.of(window.requests()).sum()).isEqualTo(1);
		assertThat(IntStream.of(window.failures()).sum()).isEqualTo(1);
	}

	@Test
	void anUnknownTargetHasAnEmptyWindow() {
		TrafficHistory.Window window = this.traffic.window("nobody", this.time.instant());
		assertThat(window.requests()).hasSize(10).containsOnly(0);
		assertThat(window.failFasts()).containsOnly(0);
	}

	@Test
	void aClockThatGoesBackNeverOverwritesALaterSecond() {
		Instant start = Instant.parse("2026-01-01T00:00:10Z");
		ManualTime settable = new ManualTime(start);
		TrafficHistory history = new TrafficHistory(settable, Duration.ofSeconds(10));
		history.onAttempt("chat", PRIMARY, Verdict.success(), 1);
		// Ten seconds back is the same slot: the earlier second must not evict the later.
		settable.rewind(Duration.ofSeconds(10));
		history.onAttempt("chat", PRIMARY, Verdict.of(Outcome.AVAILABILITY), 1);

		TrafficHistory.Window window = history.window("primary", start);
		assertThat(window.requests()).endsWith(1);
		assertThat(IntStream.of(window.requests()).sum()).isEqualTo(1);
		assertThat(IntStream.of(window.failures()).sum()).isZero();
	}

	@Test
	void theSpanMustBeBetweenASecondAndTenMinutes() {
		assertThatIllegalArgumentException().isThrownBy(() -> new TrafficHistory(this.time, Duration.ofMillis(999)))
			.withMessageContaining("span");
		assertThatIllegalArgumentException().isThrownBy(() -> new TrafficHistory(this.time, Duration.ofMinutes(11)))
			.withMessageContaining("span");
		assertThat(new TrafficHistory(this.time, Duration.ofMinutes(10)).seconds()).isEqualTo(600);
	}

	@Test
	void concurrentCallersLoseNoCount() throws InterruptedException {
		int threads = 4;
		int each = 10_000;
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		CountDownLatch start = new CountDownLatch(1);
		try {
			for (int t = 0; t < threads; t++) {
				pool.execute(() -> {
					try {
						start.await();
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
						return;
					}
					for (int i = 0; i < each; i++) {
						this.traffic.onAttempt("chat", PRIMARY, Verdict.of(Outcome.AVAILABILITY), 1);
					}
				});
			}
			start.countDown();
		}
		finally {
			pool.shutdown();
			assertThat(pool.awaitTermination(5, TimeUnit.MINUTES)).isTrue();
		}
		TrafficHistory.Window window = this.traffic.window("primary", this.time.instant());
		assertThat(window.requests()).endsWith(threads * each);
		assertThat(window.failures()).endsWith(threads * each);
	}

	/** On the system clock, events land in the seconds around now. */
	@Test
	void onTheSystemClockEventsLandInTheCurrentSeconds() {
		Clock clock = Clock.systemUTC();
		TrafficHistory history = new TrafficHistory(clock, Duration.ofMinutes(5));
		history.onAttempt("chat", PRIMARY, Verdict.success(), 1);
		history.onSkipped("chat", PRIMARY, Skip.BREAKER_OPEN);
		TrafficHistory.Window window = history.window("primary", clock.instant());
		assertThat(window.requests()).hasSize(300);
		assertThat(IntStream.of(window.requests()).sum()).isEqualTo(1);
		assertThat(IntStream.of(window.failFasts()).sum()).isEqualTo(1);
		// Recorded at most a few seconds before the window's last second, however busy.
		int last = IntStream.range(0, 300).filter((i) -> window.requests()[i] == 1).findFirst().orElseThrow();
		assertThat(last).isBetween(290, 299);
	}

}
