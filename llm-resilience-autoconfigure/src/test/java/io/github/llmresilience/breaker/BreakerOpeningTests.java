package io.github.llmresilience.breaker;

import java.io.IOException;
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
 * A {@link Breaker}'s one {@link Opening}: the event of a change a mode makes says why,
 * once; the opening's cause stands through the half-open trial and is gone when the
 * breaker closes, is reset or opens again on its rates; a change a mode asked for and did
 * not make leaves nothing for a later event to tell.
 */
class BreakerOpeningTests {

	private static final Duration OPEN = Duration.ofSeconds(30);

	private static final BreakerSettings SETTINGS = new BreakerSettings(2, 2, 50, Duration.ofSeconds(10), 50, OPEN,
			Duration.ofMinutes(2), 1);

	private final ManualTime time = new ManualTime();

	private final List<StateChange> events = new ArrayList<>();

	private final Breaker breaker;

	BreakerOpeningTests() {
		StateChanges changes = new StateChanges(this.time);
		changes.addListener(this.events::add);
		this.breaker = new Breakers(this.time, changes).forDomain("openai/gpt-4o/us", SETTINGS,
				(error) -> Verdict.of(Outcome.AVAILABILITY));
	}

	@Test
	void spendsOpeningStandsThroughTheTrialAndAFailedTrialIsTheRates() {
		assertThat(this.breaker.openOnSpend("4.0× the median")).isTrue();
		assertThat(lastDetail()).isEqualTo("CLOSED -> OPEN (spend: 4.0× the median)");
		assertThat(this.breaker.isOpenOnSpend()).isTrue();
		this.time.advance(OPEN.plusMillis(1));
		assertThat(this.breaker.tryAcquire()).isTrue();
		assertThat(this.breaker.state()).isEqualTo(State.HALF_OPEN);
		assertThat(lastDetail()).as("the call's trial is told by the rates")
			.startsWith("OPEN -> HALF_OPEN (failure rate");
		assertThat(this.breaker.isOpenOnSpend()).isTrue();
		this.breaker.onFailure(1_000_000, Verdict.of(Outcome.AVAILABILITY), new IOException("503"));
		assertThat(this.breaker.state()).isEqualTo(State.OPEN);
		assertThat(lastDetail()).startsWith("HALF_OPEN -> OPEN (failure rate");
		assertThat(this.breaker.isOpenOnSpend()).isFalse();
	}

	@Test
	void closingOrResettingEndsTheOpening() {
		this.breaker.openOnSpend("4.0× the median");
		this.time.advance(OPEN.plusMillis(1));
		assertThat(this.breaker.tryAcquire()).isTrue();
		this.breaker.onSuccess(1_000_000);
		assertThat(this.breaker.state()).isEqualTo(State.CLOSED);
		assertThat(this.breaker.isOpenOnSpend()).isFalse();
		this.breaker.openOnSpend("5.0× the median");
		this.breaker.reset();
		assertThat(this.breaker.isOpenOnSpend()).isFalse();
	}

	@Test
	void aSpendOpeningNotMadeLeavesNothingToTell() {
		open();
		assertThat(this.breaker.openOnSpend("4.0× the median")).as("open already").isFalse();
		assertThat(this.breaker.isOpenOnSpend()).isFalse();
		this.breaker.forceOpen();
		this.breaker.close();
		assertThat(this.events).extracting(StateChange::detail).noneMatch((detail) -> detail.contains("spend"));
	}

	@Test
	void theFleetsOpeningSaysFleetAndSpendLeavesAHeldBreakerAlone() {
		this.breaker.followOpen(this.time.millis() + OPEN.toMillis(), "3 pods saw 60 % failures");
		assertThat(this.breaker.state()).isEqualTo(State.OPEN);
		assertThat(lastDetail()).isEqualTo("CLOSED -> OPEN (fleet: 3 pods saw 60 % failures)");
		this.breaker.followClosed("a trial passed");
		assertThat(lastDetail()).isEqualTo("OPEN -> CLOSED (fleet: a trial passed)");
		this.breaker.followOpen(this.time.millis() + OPEN.toMillis(), "again");
		this.breaker.close();
		assertThat(this.breaker.isFleetHeld()).isFalse();
		this.breaker.followOpen(this.time.millis() + OPEN.toMillis(), "held");
		this.breaker.followClosed("held no more");
		this.breaker.followOpen(this.time.millis() + OPEN.toMillis(), "held");
		assertThat(this.breaker.openOnSpend("4.0× the median")).isFalse();
		assertThat(this.breaker.isOpenOnSpend()).isFalse();
	}

	@Test
	void anOperatorsHoldFollowedFromTheFleetKeepsTheOpeningsCause() {
		this.breaker.openOnSpend("4.0× the median");
		this.breaker.followForcedOpen();
		assertThat(lastDetail()).isEqualTo("OPEN -> FORCED_OPEN (fleet: by an operator)");
		assertThat(this.breaker.isOpenOnSpend()).isTrue();
		this.breaker.followDisabled();
		assertThat(lastDetail()).isEqualTo("FORCED_OPEN -> DISABLED (fleet: by an operator)");
	}

	private void open() {
		for (int i = 0; i < 2; i++) {
			assertThat(this.breaker.tryAcquire()).isTrue();
			this.breaker.onFailure(1_000_000, Verdict.of(Outcome.AVAILABILITY), new IOException("503"));
		}
		assertThat(this.breaker.state()).isEqualTo(State.OPEN);
	}

	private String lastDetail() {
		return this.events.get(this.events.size() - 1).detail();
	}

}
