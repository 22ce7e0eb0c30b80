package io.github.llmresilience.breaker;

import io.github.llmresilience.change.StateChanges;
import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.test.ManualTime;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ProbeLease} on its own: one trial in flight at a time, numbered so that only the
 * answer to the trial in flight settles it, and never the same number twice, even for
 * another lease.
 */
class ProbeLeaseTests {

	private static final TrialProbe PROBE = new TrialProbe() {

		@Override
		public void wakeAt(Breaker breaker, long atMillis) {
		}

		@Override
		public void send(Breaker breaker, long trial) {
		}

	};

	private final ManualTime time = new ManualTime();

	private final Breaker breaker = new Breakers(this.time, new StateChanges(this.time)).forDomain("openai/gpt-4o/us",
			BreakerSettings.defaults(), (error) -> Verdict.of(Outcome.AVAILABILITY));

	private final ProbeLease lease = new ProbeLease(this.breaker, PROBE);

	@Test
	void onlyTheAnswerToTheTrialInFlightSettlesIt() {
		assertThat(this.lease.isInFlight()).isFalse();
		long first = this.lease.begin();
		assertThat(this.lease.isInFlight()).isTrue();
		assertThat(this.lease.settle(first + 1)).isFalse();
		assertThat(this.lease.isInFlight()).isTrue();
		assertThat(this.lease.settle(first)).isTrue();
		assertThat(this.lease.isInFlight()).isFalse();
		assertThat(this.lease.settle(first)).as("settled once").isFalse();
	}

	@Test
	void aTrialEndedByTheBreakerTakesNoAnswer() {
		long trial = this.lease.begin();
		this.lease.end();
		assertThat(this.lease.isInFlight()).isFalse();
		assertThat(this.lease.settle(trial)).isFalse();
	}

	@Test
	void trialNumbersAreNeverGivenTwiceEvenByAnotherLease() {
		long first = this.lease.begin();
		this.lease.end();
		ProbeLease next = new ProbeLease(this.breaker, PROBE);
		long second = next.begin();
		assertThat(second).isNotEqualTo(first);
		assertThat(next.settle(first)).as("a late answer to the first lease's trial").isFalse();
		assertThat(next.probe()).isSameAs(PROBE);
	}

}
