package io.github.llmresilience.breaker;

import java.time.Duration;

import io.github.llmresilience.test.ManualTime;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link HalfOpenTrials} on its own, on virtual time: every trial is free when the
 * breaker goes half-open, a permit given back frees one again but never more than all,
 * and the half-open state expires its timeout after it began.
 */
class HalfOpenTrialsTests {

	private final ManualTime time = new ManualTime();

	private final HalfOpenTrials trials = new HalfOpenTrials(2, Duration.ofMinutes(1).toMillis());

	@Test
	void trialsAreTakenAndGivenBackNeverBeyondAll() {
		this.trials.began(this.time.millis());
		assertThat(this.trials.anyFree()).isTrue();
		this.trials.take();
		this.trials.take();
		assertThat(this.trials.anyFree()).isFalse();
		this.trials.giveBack();
		assertThat(this.trials.anyFree()).isTrue();
		this.trials.giveBack();
		this.trials.giveBack();
		this.trials.take();
		this.trials.take();
		assertThat(this.trials.anyFree()).as("two given back at most").isFalse();
	}

	@Test
	void theTimeoutCountsFromTheHalfOpenTransition() {
		this.time.advance(Duration.ofMinutes(5));
		this.trials.began(this.time.millis());
		this.time.advance(Duration.ofMinutes(1).minusMillis(1));
		assertThat(this.trials.expired(this.time.millis())).isFalse();
		this.time.advance(Duration.ofMillis(1));
		assertThat(this.trials.expired(this.time.millis())).isTrue();
		this.trials.began(this.time.millis());
		assertThat(this.trials.expired(this.time.millis())).as("a new half-open state starts over").isFalse();
	}

}
