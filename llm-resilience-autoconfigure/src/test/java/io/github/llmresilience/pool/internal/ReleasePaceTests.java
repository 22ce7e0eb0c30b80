package io.github.llmresilience.pool.internal;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Calls released from one gate go back a few at a time: one first, twice as many after
 * each success, one again after another rate limit.
 */
class ReleasePaceTests {

	private final ReleasePace pace = new ReleasePace();

	private int entered(String scope, int tries) {
		int entered = 0;
		for (int i = 0; i < tries; i++) {
			if (this.pace.tryEnter(scope)) {
				entered++;
			}
		}
		return entered;
	}

	@Test
	void oneGoesFirstAndEachSuccessDoublesHowManyMayBeOnTheirWay() {
		assertThat(entered("acct/gpt-4o", 10)).isEqualTo(1);
		this.pace.exit("acct/gpt-4o", false);
		assertThat(entered("acct/gpt-4o", 10)).isEqualTo(2);
		this.pace.exit("acct/gpt-4o", false);
		this.pace.exit("acct/gpt-4o", false);
		assertThat(entered("acct/gpt-4o", 10)).isEqualTo(8);
	}

	@Test
	void anotherRateLimitBringsItBackToOne() {
		entered("acct/gpt-4o", 1);
		this.pace.exit("acct/gpt-4o", false);
		entered("acct/gpt-4o", 2);
		this.pace.exit("acct/gpt-4o", true);
		this.pace.exit("acct/gpt-4o", true);
		assertThat(entered("acct/gpt-4o", 10)).isEqualTo(1);
	}

	@Test
	void anAbandonedPlaceIsFreeAgainWithoutChangingThePace() {
		entered("acct/gpt-4o", 1);
		this.pace.abandon("acct/gpt-4o");
		assertThat(entered("acct/gpt-4o", 10)).isEqualTo(1);
	}

	@Test
	void scopesArePacedApartAndTheAllowanceIsBounded() {
		assertThat(entered("a/m", 1)).isEqualTo(1);
		assertThat(entered("b/m", 1)).isEqualTo(1);
		for (int i = 0; i < 40; i++) {
			this.pace.exit("a/m", false);
		}
		assertThat(entered("a/m", 5000)).isEqualTo(ReleasePace.MAX_ALLOWANCE);
	}

}
