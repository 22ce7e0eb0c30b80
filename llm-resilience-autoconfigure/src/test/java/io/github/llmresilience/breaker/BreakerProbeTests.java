package io.github.llmresilience.breaker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.change.StateChanges;
import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.test.ManualTime;
import io.github.resilience4j.circuitbreaker.CircuitBreaker.State;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@link Breaker} whose trials a {@link TrialProbe} sends, on virtual time with a probe
 * that records what it is asked: calls never go through while open or half-open, the
 * probe is woken at the end of every open time, one answer decides the trial whatever
 * {@code half-open-calls} says, a stale answer is dropped, and a probe that never answers
 * is given up by {@code half-open-timeout}.
 */
class BreakerProbeTests {

	private static final Duration OPEN = Duration.ofSeconds(30);

	/** Two calls, 50 %, open 30 s to 2 min, three half-open calls, 1 min half-open. */
	private static final BreakerSettings SETTINGS = new BreakerSettings(2, 2, 50, Duration.ofSeconds(10), 50, OPEN,
			Duration.ofMinutes(2), 3)
		.withHalfOpenTimeout(Duration.ofMinutes(1));

	private final ManualTime time = new ManualTime();

	private final List<StateChange> events = new ArrayList<>();

	private final Breaker breaker;

	private final RecordingProbe probe = new RecordingProbe();

	BreakerProbeTests() {
		StateChanges changes = new StateChanges(this.time);
		changes.addListener(this.events::add);
		this.breaker = new Breakers(this.time, changes).forDomain("openai/gpt-4o/us", SETTINGS,
				(error) -> Verdict.of(Outcome.AVAILABILITY));
		this.breaker.useProbe(this.probe);
	}

	@Test
	void theProbeIsWokenAtTheEndOfTheOpenTimeAndCallsNeverGoThrough() {
		open();
		assertThat(this.probe.wakes).containsExactly(this.time.millis() + OPEN.toMillis());
		this.time.advance(OPEN.plusSeconds(1));
		assertThat(this.breaker.tryAcquire()).isFalse();
		assertThat(this.breaker.isUsable()).isFalse();
		// The call that found the open time over started the canary in its place.
		assertThat(this.breaker.state()).isEqualTo(State.HALF_OPEN);
		assertThat(this.probe.trials).hasSize(1);
		// Half-open with two of three trial permits free: still no call.
		assertThat(this.breaker.tryAcquire()).isFalse();
		assertThat(this.probe.trials).hasSize(1);
	}

	@Test
	void oneAnswerDecidesTheTrialWhateverTheHalfOpenCalls() {
		open();
		this.breaker.probeDue();
		assertThat(this.breaker.state()).isEqualTo(State.OPEN);
		this.time.advance(OPEN);
		this.breaker.probeDue();
		this.breaker.probeAnswered(this.probe.trials.get(0), true, 1_000_000, "answer passed (json)");
		assertThat(this.breaker.state()).isEqualTo(State.CLOSED);
		assertThat(this.events.get(this.events.size() - 1).detail())
			.isEqualTo("HALF_OPEN -> CLOSED (canary: answer passed (json))");
		assertThat(this.breaker.tryAcquire()).isTrue();
	}

	@Test
	void aFailedAnswerReopensForTheGrownOpenDurationAndWakesTheProbeAgain() {
		open();
		this.time.advance(OPEN);
		this.breaker.probeDue();
		this.breaker.probeAnswered(this.probe.trials.get(0), false, 1_000_000, "answer not JSON");
		assertThat(this.breaker.state()).isEqualTo(State.OPEN);
		assertThat(this.breaker.availableAt()).isEqualTo(this.time.instant().plus(OPEN.multipliedBy(2)));
		assertThat(this.probe.wakes).last().isEqualTo(this.time.millis() + 2 * OPEN.toMillis());
	}

	@Test
	void anAnswerToATrialAlreadyOverIsDropped() {
		open();
		this.time.advance(OPEN);
		this.breaker.probeDue();
		long stale = this.probe.trials.get(0);
		this.breaker.forceOpen();
		this.breaker.close();
		this.breaker.probeAnswered(stale, false, 1_000_000, "HTTP 503");
		assertThat(this.breaker.state()).isEqualTo(State.CLOSED);
	}

	@Test
	void aProbeThatNeverAnswersIsGivenUpByTheHalfOpenTimeout() {
		open();
		this.time.advance(OPEN);
		this.breaker.probeDue();
		this.time.advance(Duration.ofMinutes(1));
		assertThat(this.breaker.tryAcquire()).isFalse();
		assertThat(this.breaker.state()).isEqualTo(State.OPEN);
		assertThat(this.events.get(this.events.size() - 1).detail())
			.contains("canary: no outcome within the half-open timeout");
		this.time.advance(OPEN.multipliedBy(2));
		this.breaker.probeDue();
		assertThat(this.probe.trials).hasSize(2);
	}

	private void open() {
		for (int i = 0; i < 2; i++) {
			assertThat(this.breaker.tryAcquire()).isTrue();
			this.breaker.onFailure(1_000_000, Verdict.of(Outcome.AVAILABILITY), new RuntimeException("503"));
		}
		assertThat(this.breaker.state()).isEqualTo(State.OPEN);
	}

	/** Records wake-ups and trials; the test answers them. */
	private static final class RecordingProbe implements TrialProbe {

		final List<Long> wakes = new ArrayList<>();

		final List<Long> trials = new ArrayList<>();

		@Override
		public void wakeAt(Breaker breaker, long atMillis) {
			this.wakes.add(atMillis);
		}

		@Override
		public void send(Breaker breaker, long trial) {
			this.trials.add(trial);
		}

	}

}
