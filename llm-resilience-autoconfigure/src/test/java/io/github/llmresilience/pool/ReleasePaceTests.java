package io.github.llmresilience.pool;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Calls released from one gate go back a few at a time: one first, twice as many after
 * each success or each step without a refusal, one again after another rate limit; a call
 * whose wait runs out goes unless a refusal came meanwhile.
 */
class ReleasePaceTests {

	private static final String SCOPE = "acct/gpt-4o";

	private final ReleasePace pace = new ReleasePace();

	/** Monotonic time, in nanoseconds: moved only by the tests. */
	private long now = 1_000_000_000L;

	private int entered(String scope, int tries) {
		ReleasePace.Release release = this.pace.waiting(scope);
		int entered = 0;
		for (int i = 0; i < tries; i++) {
			if (this.pace.tryEnter(release, this.now, false)) {
				entered++;
			}
		}
		return entered;
	}

	private void exit(String scope, boolean throttled) {
		this.pace.exit(scope, throttled, this.now);
	}

	@Test
	void oneGoesFirstAndEachSuccessDoublesHowManyMayBeOnTheirWay() {
		assertThat(entered(SCOPE, 10)).isEqualTo(1);
		exit(SCOPE, false);
		assertThat(entered(SCOPE, 10)).isEqualTo(2);
		exit(SCOPE, false);
		exit(SCOPE, false);
		assertThat(entered(SCOPE, 10)).isEqualTo(8);
	}

	@Test
	void anotherRateLimitBringsItBackToOne() {
		entered(SCOPE, 1);
		exit(SCOPE, false);
		entered(SCOPE, 2);
		exit(SCOPE, true);
		exit(SCOPE, true);
		assertThat(entered(SCOPE, 10)).isEqualTo(1);
	}

	@Test
	void anAbandonedPlaceIsFreeAgainWithoutChangingThePace() {
		entered(SCOPE, 1);
		this.pace.abandon(SCOPE);
		assertThat(entered(SCOPE, 10)).isEqualTo(1);
	}

	@Test
	void scopesArePacedApartAndTheAllowanceIsBounded() {
		assertThat(entered("a/m", 1)).isEqualTo(1);
		assertThat(entered("b/m", 1)).isEqualTo(1);
		for (int i = 0; i < 40; i++) {
			exit("a/m", false);
		}
		assertThat(entered("a/m", 5000)).isEqualTo(ReleasePace.MAX_ALLOWANCE);
	}

	@Test
	void callsOutForAStepWithoutARefusalWidenThePaceAsASuccessWould() {
		assertThat(entered(SCOPE, 10)).isEqualTo(1);
		this.now += ReleasePace.MIN_STEP_NANOS - 1;
		assertThat(entered(SCOPE, 10)).isZero();
		this.now += 1;
		// Two may be on their way: the one still out and one more.
		assertThat(entered(SCOPE, 10)).isEqualTo(1);
		this.now += ReleasePace.MIN_STEP_NANOS;
		assertThat(entered(SCOPE, 10)).isEqualTo(2);
		this.now += ReleasePace.MIN_STEP_NANOS;
		assertThat(entered(SCOPE, 10)).isEqualTo(4);
	}

	@Test
	void aStepLastsTwiceAsLongAsTheLastRefusalTookToComeBack() {
		long roundTrip = 3 * ReleasePace.MIN_STEP_NANOS;
		this.pace.refused(SCOPE, roundTrip, this.now, 0);
		assertThat(entered(SCOPE, 10)).isEqualTo(1);
		this.now += 2 * roundTrip - 1;
		assertThat(entered(SCOPE, 10)).isZero();
		this.now += 1;
		assertThat(entered(SCOPE, 10)).isEqualTo(1);
	}

	@Test
	void aRefusalThatTookVeryLongStillWidensThePaceWithinTheLongestStep() {
		this.pace.refused(SCOPE, 100 * ReleasePace.MAX_STEP_NANOS, this.now, 0);
		assertThat(entered(SCOPE, 10)).isEqualTo(1);
		this.now += ReleasePace.MAX_STEP_NANOS - 1;
		assertThat(entered(SCOPE, 10)).isZero();
		this.now += 1;
		assertThat(entered(SCOPE, 10)).isEqualTo(1);
	}

	@Test
	void aRefusalOfAnyCallStartsThePaceOverAndIsAStepOfItsOwn() {
		entered(SCOPE, 1);
		exit(SCOPE, false);
		exit(SCOPE, false);
		this.pace.refused(SCOPE, 0, this.now, 0);
		assertThat(entered(SCOPE, 10)).isEqualTo(1);
		this.now += ReleasePace.MIN_STEP_NANOS - 1;
		assertThat(entered(SCOPE, 10)).isZero();
	}

	@Test
	void noStepPassesWhileTheGateOfARefusalHoldsTheScope() {
		long gate = 10 * ReleasePace.MAX_STEP_NANOS;
		assertThat(entered(SCOPE, 1)).isEqualTo(1);
		// A call of the scope is refused while the released one is still out.
		this.pace.refused(SCOPE, 0, this.now, gate);
		this.now += gate - 1;
		assertThat(entered(SCOPE, 10)).isZero();
		// A success during the gate widens the pace, but starts no step.
		exit(SCOPE, false);
		assertThat(entered(SCOPE, 1)).isEqualTo(1);
		assertThat(entered(SCOPE, 10)).isEqualTo(1);
		this.now += ReleasePace.MIN_STEP_NANOS;
		assertThat(entered(SCOPE, 10)).isZero();
		this.now += 1;
		assertThat(entered(SCOPE, 10)).isEqualTo(2);
	}

	@Test
	void aCallWhoseWaitRunsOutGoesWhenNoRefusalCameSinceItBeganToWait() {
		ReleasePace.Release first = this.pace.waiting(SCOPE);
		ReleasePace.Release last = this.pace.waiting(SCOPE);
		assertThat(this.pace.tryEnter(first, this.now, false)).isTrue();
		assertThat(this.pace.tryEnter(last, this.now, false)).isFalse();

		assertThat(this.pace.tryEnter(last, this.now, true)).isTrue();
	}

	@Test
	void aCallWhoseWaitRunsOutAfterARefusalFailsAsRateLimited() {
		ReleasePace.Release first = this.pace.waiting(SCOPE);
		ReleasePace.Release last = this.pace.waiting(SCOPE);
		assertThat(this.pace.tryEnter(first, this.now, false)).isTrue();
		// Another call of the scope was refused while these wait; the first is still out.
		this.pace.refused(SCOPE, 0, this.now, 0);

		assertThat(this.pace.tryEnter(last, this.now, true)).isFalse();
		// One that began to wait after that refusal has its last chance.
		assertThat(this.pace.tryEnter(this.pace.waiting(SCOPE), this.now, true)).isTrue();
	}

}
