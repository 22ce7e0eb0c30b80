package io.github.llmresilience.breaker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.llmresilience.test.ManualTime;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link FleetFollowing} on its own, on virtual time: a held domain refuses calls and
 * notes their demand and the gap between them, a granted trial goes through, an opening
 * of this pod's own is news to the fleet and waits for its lease when the fleet hands
 * them out, and a trial that ends tells the fleet how once.
 */
class FleetFollowingTests {

	private final ManualTime time = new ManualTime();

	private final RecordingOutcomes shared = new RecordingOutcomes();

	private final FleetFollowing fleet = new FleetFollowing(this.time);

	@Test
	void aHeldDomainRefusesCallsAndNotesTheirDemand() {
		this.fleet.share(this.shared);
		assertThat(this.fleet.refusesCalls()).isFalse();
		this.fleet.hold(this.time.millis() + 30_000);
		assertThat(this.fleet.isHeld()).isTrue();
		assertThat(this.fleet.refusesCalls()).isTrue();
		assertThat(this.fleet.refuse()).isTrue();
		assertThat(this.fleet.demandGapMillis()).as("one call tells no gap").isZero();
		this.time.advance(Duration.ofSeconds(4));
		assertThat(this.fleet.refuse()).isTrue();
		assertThat(this.fleet.demandGapMillis()).isEqualTo(4_000);
		assertThat(this.fleet.takeDemand()).isTrue();
		assertThat(this.fleet.takeDemand()).as("taken once").isFalse();
	}

	@Test
	void aGrantedTrialGoesThroughAndItsEndIsToldOnce() {
		this.fleet.share(this.shared);
		assertThat(this.fleet.grant()).as("nothing held, nothing to grant").isFalse();
		this.fleet.hold(this.time.millis() + 30_000);
		assertThat(this.fleet.grant()).isTrue();
		assertThat(this.fleet.refusesCalls()).isFalse();
		assertThat(this.fleet.refuse()).isFalse();
		assertThat(this.fleet.takeDemand()).as("a granted call is no demand").isFalse();
		this.fleet.closed();
		this.fleet.endTrial(true);
		assertThat(this.shared.trials).containsExactly(true);
		assertThat(this.fleet.isHeld()).isFalse();
		assertThat(this.fleet.isTrialGranted()).isFalse();
	}

	@Test
	void theFleetsEndOfAnOpeningIsUsedOnlyWhileItHoldsTheDomainUntilLater() {
		long until = this.time.millis() + 30_000;
		assertThat(this.fleet.endOfOpening(this.time.millis())).isZero();
		this.fleet.hold(until);
		assertThat(this.fleet.endOfOpening(this.time.millis())).isEqualTo(until);
		assertThat(this.fleet.endOfOpening(until)).as("an end already reached is this pod's to set").isZero();
		this.fleet.leave();
		assertThat(this.fleet.endOfOpening(this.time.millis())).isZero();
		assertThat(this.fleet.untilMillis()).isEqualTo(until);
	}

	@Test
	void anOpeningOfThisPodsOwnIsNewsAndWaitsForTheLeaseWhenTheFleetHandsThemOut() {
		this.fleet.openedHere(this.time.millis() + 30_000);
		assertThat(this.fleet.isHeld()).as("not shared: nothing to tell").isFalse();
		this.fleet.share(this.shared);
		this.fleet.openedHere(this.time.millis() + 30_000);
		assertThat(this.shared.openings).isOne();
		assertThat(this.fleet.isHeld()).as("the store is away: this pod takes its own trials").isFalse();
		this.shared.leases = true;
		this.fleet.openedHere(this.time.millis() + 30_000);
		assertThat(this.shared.openings).isEqualTo(2);
		assertThat(this.fleet.isHeld()).isTrue();
		assertThat(this.fleet.untilMillis()).isEqualTo(this.time.millis() + 30_000);
		this.fleet.openedHere(this.time.millis() + 60_000);
		assertThat(this.shared.openings).as("held already: no news").isEqualTo(2);
	}

	@Test
	void theFleetClosingOrAnOperatorEndsTheHoldAndTheTrial() {
		this.fleet.hold(this.time.millis() + 30_000);
		this.fleet.grant();
		this.fleet.release();
		assertThat(this.fleet.isHeld()).isFalse();
		assertThat(this.fleet.isTrialGranted()).isFalse();
		assertThat(this.fleet.untilMillis()).isZero();
		this.fleet.hold(this.time.millis() + 30_000);
		this.fleet.grant();
		this.fleet.yieldToOperator();
		assertThat(this.fleet.isHeld()).isFalse();
		assertThat(this.fleet.isTrialGranted()).isFalse();
	}

	@Test
	void outcomesGoToTheFleetOnceShared() {
		this.fleet.record(true, false);
		this.fleet.share(this.shared);
		this.fleet.record(true, false);
		this.fleet.record(false, true);
		assertThat(this.shared.outcomes).containsExactly("failure", "slow");
	}

	private static final class RecordingOutcomes implements SharedOutcomes {

		final List<String> outcomes = new ArrayList<>();

		final List<Boolean> trials = new ArrayList<>();

		int openings;

		boolean leases;

		@Override
		public void record(boolean failure, boolean slow) {
			this.outcomes.add(failure ? "failure" : slow ? "slow" : "success");
		}

		@Override
		public void trialEnded(boolean closed) {
			this.trials.add(closed);
		}

		@Override
		public boolean leasesTrials() {
			return this.leases;
		}

		@Override
		public void opened() {
			this.openings++;
		}

	}

}
