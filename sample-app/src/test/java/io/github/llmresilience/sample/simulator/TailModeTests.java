package io.github.llmresilience.sample.simulator;

import java.time.Clock;
import java.time.Duration;
import java.util.List;

import io.github.llmresilience.sample.simulator.RunningSimulator.Answered;
import io.github.llmresilience.test.ManualTime;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Schedulers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code tail} mode over real HTTP: a share of requests gets its first token ten
 * times later than the rest, which answer as normal. On virtual time for plain answers
 * (every answer takes exactly 800 ms, its first token 320 ms of it: a slow one comes
 * after 800 + 9 * 320 ms), and once on the system clock for streams.
 */
class TailModeTests {

	private static final Duration LATENCY = Duration.ofMillis(800);

	private static final Duration FIRST_TOKEN = LATENCY.multipliedBy(4).dividedBy(10);

	private static final Duration PATIENCE = Duration.ofSeconds(20);

	private static final int REQUESTS = 60;

	@Test
	void theSlowShareDefaultsToFivePercent() {
		ManualTime time = new ManualTime();
		try (RunningSimulator simulator = new RunningSimulator(time, time, LATENCY, time::elapsed)) {
			assertThat(simulator.mode("{\"mode\": \"tail\"}")).contains("\"mode\":\"tail\"")
				.contains("\"probability\":0.05");
			assertThat(simulator.mode("{\"mode\": \"tail\", \"probability\": 0.2}")).contains("\"probability\":0.2");
		}
	}

	/**
	 * Sixty requests with a slow share of 0.3: about 18 slow (between 5 and 35 with a
	 * chance of failing below 1e-6), each exactly 9 first tokens later than the others.
	 */
	@Test
	void aShareOfAnswersComesLaterByNineFirstTokensAndTheRestAsNormal() {
		ManualTime time = new ManualTime();
		try (RunningSimulator simulator = new RunningSimulator(time, time, LATENCY, time::elapsed)) {
			simulator.mode("{\"mode\": \"tail\", \"probability\": 0.3}");
			for (int i = 0; i < REQUESTS; i++) {
				simulator.send(false);
			}
			// Every request arrived and waits for its latency on virtual time.
			await().atMost(PATIENCE).until(() -> time.pendingTimers() == REQUESTS);

			time.advance(LATENCY);
			// The slow ones still wait.
			int slow = time.pendingTimers();
			await().atMost(PATIENCE).until(() -> simulator.answers.size() == REQUESTS - slow);
			Duration slowLatency = LATENCY.plus(FIRST_TOKEN.multipliedBy(9));
			time.advance(slowLatency.minus(time.elapsed()));
			await().atMost(PATIENCE).until(() -> simulator.answers.size() == REQUESTS);

			List<Answered> answers = simulator.answered();
			assertThat(answers).allSatisfy((answer) -> assertThat(answer.status()).isEqualTo(200));
			assertThat(answers).filteredOn((answer) -> answer.at().equals(LATENCY)).hasSize(REQUESTS - slow);
			assertThat(answers).filteredOn((answer) -> answer.at().equals(slowLatency)).hasSize(slow);
			assertThat(slow).isBetween(5, 35);
			assertThat(simulator.stats().mode(Mode.TAIL).requests()).isEqualTo(REQUESTS);
		}
	}

	/**
	 * On the system clock with streams (1 s answers: the first event after 400 ms, a slow
	 * one's after 4 s), forty streams with a slow share of 0.5: a slow first token is
	 * never earlier than 4 s, and about half of the streams have one (between 5 and 35,
	 * tolerant of a loaded machine that delays a normal one; a chance below 1e-7 of
	 * failing otherwise).
	 */
	@Test
	void aShareOfStreamsGetsItsFirstTokenTenTimesLaterOnTheSystemClock() {
		Duration latency = Duration.ofSeconds(1);
		Duration slowFirstToken = latency.multipliedBy(4).dividedBy(10).multipliedBy(10);
		long start = System.nanoTime();
		try (RunningSimulator simulator = new RunningSimulator(Clock.systemUTC(), Schedulers.parallel(), latency,
				() -> Duration.ofNanos(System.nanoTime() - start))) {
			// A first stream as normal, so that the client's and the server's first use
			// (connections, classes) is not counted as a slow first token.
			simulator.send(true);
			await().atMost(PATIENCE).until(() -> simulator.answers.size() == 1);
			simulator.answers.clear();
			simulator.mode("{\"mode\": \"tail\", \"probability\": 0.5}");
			for (int i = 0; i < 40; i++) {
				simulator.send(true);
			}
			await().atMost(PATIENCE).until(() -> simulator.answers.size() == 40);

			List<Answered> answers = simulator.answered();
			assertThat(answers).allSatisfy((answer) -> assertThat(answer.status()).isEqualTo(200));
			long slow = answers.stream().filter((answer) -> answer.latency().compareTo(slowFirstToken) >= 0).count();
			assertThat(slow).as("latencies %s", answers.stream().map(Answered::latency).sorted().toList())
				.isBetween(5L, 35L);
			assertThat(answers).anySatisfy((answer) -> assertThat(answer.latency()).isLessThan(slowFirstToken));
		}
	}

}
