package io.github.llmresilience.retry.internal;

import java.time.Duration;

import io.github.llmresilience.retry.RetryBudget;
import io.github.llmresilience.retry.RetrySettings;
import io.github.llmresilience.test.ManualTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@link RetryBudget} allows, over its sliding window, retries up to its ratio of the
 * calls seen (the exact share, not one less to a rounding error) and never fewer than its
 * minimum; calls and retries leave the budget when they leave the window, read on the
 * injected clock, bucket by bucket.
 */
class RetryBudgetTests {

	private static final Duration WINDOW = Duration.ofSeconds(10);

	private final ManualTime time = new ManualTime();

	private final RetryBudget budget = new RetryBudget(this.time::nanoTime, 0.1, WINDOW, 3);

	@Test
	void theMinimumIsAllowedWithoutAnyCall() {
		assertThat(retries(this.budget)).isEqualTo(3);
		assertThat(this.budget.window()).containsExactly(0, 3);
	}

	@Test
	void theRatioOfTheCallsIsAllowedAboveTheMinimum() {
		calls(this.budget, 100);
		assertThat(retries(this.budget)).isEqualTo(10);
		assertThat(this.budget.window()).containsExactly(100, 10);
	}

	@Test
	void theMinimumWinsOverASmallerShare() {
		calls(this.budget, 29);
		assertThat(retries(this.budget)).isEqualTo(3);
	}

	@Test
	void retriesAlreadyTakenCountAgainstTheShare() {
		calls(this.budget, 40);
		assertThat(retries(this.budget)).isEqualTo(4);
		calls(this.budget, 10);
		assertThat(retries(this.budget)).isOne();
		assertThat(this.budget.window()).containsExactly(50, 5);
	}

	@ParameterizedTest
	@CsvSource({ "0.7, 90, 63", "0.35, 180, 63", "0.29, 100, 29", "0.1, 1000, 100", "0.5, 7, 3", "1.0, 12, 12" })
	void theShareIsExact(double ratio, int calls, int allowed) {
		RetryBudget budget = new RetryBudget(this.time::nanoTime, ratio, WINDOW, 0);
		calls(budget, calls);
		assertThat(retries(budget)).isEqualTo(allowed);
	}

	@Test
	void noMinimumAndNoCallsAllowsNoRetry() {
		RetryBudget budget = new RetryBudget(this.time::nanoTime, 0.5, WINDOW, 0);
		assertThat(budget.tryRetry()).isFalse();
		assertThat(budget.window()).containsExactly(0, 0);
	}

	@Test
	void callsAndRetriesCountUntilTheyLeaveTheWindow() {
		calls(this.budget, 50);
		assertThat(retries(this.budget)).isEqualTo(5);

		this.time.advance(WINDOW.minusMillis(1));
		assertThat(this.budget.tryRetry()).isFalse();
		assertThat(this.budget.window()).containsExactly(50, 5);

		this.time.advance(Duration.ofMillis(1));
		assertThat(this.budget.window()).containsExactly(0, 0);
		assertThat(retries(this.budget)).isEqualTo(3);
	}

	@Test
	void theWindowSlidesBucketByBucket() {
		calls(this.budget, 60);
		this.time.advance(Duration.ofSeconds(5));
		calls(this.budget, 40);
		assertThat(retries(this.budget)).isEqualTo(10);

		this.time.advance(Duration.ofSeconds(5));
		assertThat(this.budget.window()).as("the first calls left, the retries stay").containsExactly(40, 10);
		assertThat(this.budget.tryRetry()).isFalse();

		this.time.advance(Duration.ofSeconds(5));
		assertThat(this.budget.window()).containsExactly(0, 0);
		assertThat(retries(this.budget)).isEqualTo(3);
	}

	@Test
	void aBucketReusedAfterALongSilenceStartsEmpty() {
		calls(this.budget, 100);
		assertThat(retries(this.budget)).isEqualTo(10);
		this.time.advance(Duration.ofHours(3));
		assertThat(this.budget.window()).containsExactly(0, 0);
		calls(this.budget, 1);
		assertThat(this.budget.window()).containsExactly(1, 0);
		assertThat(retries(this.budget)).isEqualTo(3);
	}

	@Test
	void theSettingsGiveRatioWindowAndMinimum() {
		RetryBudget budget = RetryBudget.of(this.time::nanoTime,
				new RetrySettings(3, Duration.ofMillis(500), Duration.ofSeconds(30), 0.2, Duration.ofMinutes(1), 2));
		assertThat(retries(budget)).isEqualTo(2);
		calls(budget, 50);
		assertThat(retries(budget)).isEqualTo(8);
		this.time.advance(Duration.ofSeconds(59));
		assertThat(budget.tryRetry()).isFalse();
		this.time.advance(Duration.ofSeconds(1));
		assertThat(retries(budget)).isEqualTo(2);
	}

	@Test
	void onTheSystemTimeAWindowKeepsItsCountsWhileItLasts() {
		RetryBudget budget = new RetryBudget(System::nanoTime, 0.5, Duration.ofMinutes(10), 3);
		calls(budget, 10);
		assertThat(retries(budget)).isEqualTo(5);
		calls(budget, 2);
		assertThat(retries(budget)).isOne();
		assertThat(budget.window()).containsExactly(12, 6);
	}

	@Test
	void aCallCountedAtItsStartCountsNowAndItsOwnTimeDoesNotEraseALaterBucket() {
		long start = this.time.nanoTime();
		this.time.advance(WINDOW);
		calls(this.budget, 50);
		// Counted at a start a whole window old: same slot as now, an older bucket.
		this.budget.onCall(start);
		assertThat(this.budget.window()).containsExactly(51, 0);
		assertThat(retries(this.budget)).isEqualTo(5);
	}

	private static void calls(RetryBudget budget, int calls) {
		for (int i = 0; i < calls; i++) {
			budget.onCall();
		}
	}

	/** Take every retry the budget allows now. */
	private static int retries(RetryBudget budget) {
		int taken = 0;
		while (budget.tryRetry()) {
			taken++;
			assertThat(taken).as("retries taken").isLessThan(100_000);
		}
		return taken;
	}

}
