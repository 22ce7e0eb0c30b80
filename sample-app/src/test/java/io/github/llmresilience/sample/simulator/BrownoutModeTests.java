package io.github.llmresilience.sample.simulator;

import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;

import io.github.llmresilience.sample.simulator.RunningSimulator.Answered;
import io.github.llmresilience.test.ManualTime;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Schedulers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code brownout} mode over real HTTP: up to its capacity a target answers as
 * normal; beyond it requests wait in line for a slot, so that answers come in waves a
 * latency apart, and a share of them gets the vendor's overload answer at once. On
 * virtual time (every answer takes exactly 800 ms), and once on the system clock for
 * streams.
 */
class BrownoutModeTests {

	private static final Duration LATENCY = Duration.ofMillis(800);

	/** Errors come back in a tenth of the latency. */
	private static final Duration SHED_LATENCY = LATENCY.dividedBy(10);

	private static final Duration PATIENCE = Duration.ofSeconds(20);

	@Test
	void theModeTakesItsCapacityAndDefaultsToEight() {
		ManualTime time = new ManualTime();
		try (RunningSimulator simulator = new RunningSimulator(time, time, LATENCY, time::elapsed)) {
			assertThat(simulator.mode("{\"mode\": \"brownout\"}")).contains("\"mode\":\"brownout\"")
				.contains("\"capacity\":8");
			assertThat(simulator.mode("{\"mode\": \"brownout\", \"capacity\": 3}")).contains("\"capacity\":3");
		}
	}

	@Test
	void atCapacityEveryRequestIsAnsweredAsNormal() {
		ManualTime time = new ManualTime();
		try (RunningSimulator simulator = new RunningSimulator(time, time, LATENCY, time::elapsed)) {
			simulator.mode("{\"mode\": \"brownout\", \"capacity\": 4}");
			for (int i = 0; i < 4; i++) {
				simulator.send(false);
			}
			// Each request holds a slot and waits for its latency on virtual time.
			await().atMost(PATIENCE).until(() -> time.pendingTimers() == 4);
			assertThat(simulator.slots().busy()).isEqualTo(4);

			time.advance(LATENCY);
			await().atMost(PATIENCE).until(() -> simulator.answers.size() == 4);

			assertThat(simulator.answered()).allSatisfy((answer) -> {
				assertThat(answer.status()).isEqualTo(200);
				assertThat(answer.at()).isEqualTo(LATENCY);
			});
			assertThat(simulator.stats().overloaded()).isZero();
			assertThat(simulator.stats().mode(Mode.BROWNOUT).requests()).isEqualTo(4);
			await().atMost(PATIENCE).until(() -> simulator.slots().busy() == 0);
		}
	}

	/**
	 * Twenty requests at once on a capacity of 4: four hold a slot; of the sixteen over
	 * it, each is shed with probability min(0.9, waiting / 8) (none shed, or all of them,
	 * has a chance below 1e-8), the others wait in line and are answered four by four, a
	 * latency apart.
	 */
	@Test
	void overCapacityRequestsQueueInWavesAndAShareGetsTheOverloadAnswer() {
		ManualTime time = new ManualTime();
		try (RunningSimulator simulator = new RunningSimulator(time, time, LATENCY, time::elapsed)) {
			simulator.mode("{\"mode\": \"brownout\", \"capacity\": 4}");
			for (int i = 0; i < 20; i++) {
				simulator.send(false);
			}
			// Every request arrived: four hold a slot (a timer each), the shed ones wait
			// for their answer's latency (a timer each), the rest wait in line.
			await().atMost(PATIENCE)
				.until(() -> simulator.stats().requests() == 20
						&& time.pendingTimers() == 4 + simulator.stats().overloaded());
			long overloaded = simulator.stats().overloaded();
			int admitted = (int) (20 - overloaded);
			assertThat(overloaded).isPositive();
			assertThat(admitted).isGreaterThan(4);
			assertThat(simulator.slots().waiting()).isEqualTo(admitted - 4);

			time.advance(SHED_LATENCY);
			await().atMost(PATIENCE).until(() -> simulator.answers.size() == overloaded);
			assertThat(simulator.answered()).allSatisfy((answer) -> {
				assertThat(answer.overloaded()).as(answer.body()).isTrue();
				assertThat(answer.at()).isEqualTo(SHED_LATENCY);
			});

			int waves = (admitted + 3) / 4;
			for (int wave = 1; wave <= waves; wave++) {
				time.advance(LATENCY.multipliedBy(wave).minus(time.elapsed()));
				int served = Math.min(4 * wave, admitted);
				await().atMost(PATIENCE).until(() -> simulator.answers.size() == overloaded + served);
				Duration at = LATENCY.multipliedBy(wave);
				assertThat(simulator.answered().stream().filter((answer) -> answer.status() == 200)).hasSize(served)
					.filteredOn((answer) -> answer.at().equals(at))
					.hasSize(Math.min(4, admitted - 4 * (wave - 1)));
			}
			// The last in line waited for every wave ahead of it.
			assertThat(simulator.answered().stream().map(Answered::at).max(Comparator.naturalOrder()))
				.contains(LATENCY.multipliedBy(waves));
			assertThat(simulator.stats().statuses()).containsEntry(200, (long) admitted).containsEntry(429, overloaded);
			await().atMost(PATIENCE).until(() -> simulator.slots().busy() == 0);
		}
	}

	/**
	 * On the system clock with streams (200 ms answers, the first event after 80 ms): a
	 * stream holds its slot until its last event, so the n-th stream in line gets its
	 * first token no earlier than n / 4 latencies later than the first four.
	 */
	@Test
	void streamsOverCapacityGetTheirFirstTokenLaterByTheirTimeInLineOnTheSystemClock() {
		Duration latency = Duration.ofMillis(200);
		Duration firstToken = latency.multipliedBy(4).dividedBy(10);
		long start = System.nanoTime();
		try (RunningSimulator simulator = new RunningSimulator(Clock.systemUTC(), Schedulers.parallel(), latency,
				() -> Duration.ofNanos(System.nanoTime() - start))) {
			simulator.mode("{\"mode\": \"brownout\", \"capacity\": 4}");
			for (int i = 0; i < 20; i++) {
				simulator.send(true);
			}
			await().atMost(PATIENCE).until(() -> simulator.answers.size() == 20);

			List<Answered> answers = simulator.answered();
			assertThat(answers).allSatisfy((answer) -> assertThat(answer.status()).isIn(200, 429));
			List<Duration> firstTokens = answers.stream()
				.filter((answer) -> answer.status() == 200)
				.map(Answered::at)
				.sorted()
				.toList();
			assertThat(firstTokens).hasSizeGreaterThan(4);
			assertThat(answers).filteredOn(Answered::overloaded)
				.hasSize((int) simulator.stats().overloaded())
				.isNotEmpty();
			for (int i = 0; i < firstTokens.size(); i++) {
				assertThat(firstTokens.get(i)).as("first token of the stream %d in line", i + 1)
					.isGreaterThanOrEqualTo(latency.multipliedBy(i / 4).plus(firstToken).minusMillis(1));
			}
			// Tolerant: the first four are not held up by a line.
			assertThat(firstTokens.get(3)).isLessThan(Duration.ofSeconds(5));
			await().atMost(PATIENCE).until(() -> simulator.slots().busy() == 0 && simulator.slots().waiting() == 0);
		}
	}

}
