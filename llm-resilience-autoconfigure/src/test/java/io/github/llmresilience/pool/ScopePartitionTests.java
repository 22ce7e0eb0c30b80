package io.github.llmresilience.pool;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.github.llmresilience.pool.internal.CapacityHeaders;
import io.github.llmresilience.test.ManualTime;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * One scope's partition at the edges: capacities as large as a bucket holds, and calls
 * that wait while the capacity becomes known or changes.
 */
class ScopePartitionTests {

	private static final PoolSettings INTERACTIVE = PoolSettings.interactive();

	private static final PoolSettings BACKGROUND = PoolSettings.background();

	/** What a minute's bucket holds at most: Bucket4j refills one token a nanosecond. */
	private static final long BUCKET_MOST = Duration.ofMinutes(1).toNanos();

	private static final PoolSettings EVALUATION = PoolSettings.evaluation();

	private final ManualTime time = new ManualTime();

	private final ScopePartition partition = new ScopePartition("acct/gpt-4o", PartitionSettings.defaultPools(),
			SupplySource.of(BucketSource.local(this.time::nanoTime)), null, 1);

	private long requestsPerMinute(PoolSettings pool) {
		return this.partition.state().pools().get(pool.name()).requestsPerMinute();
	}

	private long requestsAvailable() {
		return this.partition.state().requestsAvailable();
	}

	private long waiting(PoolSettings pool) {
		return this.partition.state().pools().get(pool.name()).waiting();
	}

	@Test
	void aCapacityStatedBeyondWhatABucketRefillsIsBoundedToItAndPartitioned() {
		Capacity stated = CapacityHeaders
			.read((name) -> Map.of("x-ratelimit-limit-requests", "1000000000000").get(name.toLowerCase(Locale.ROOT)));

		assertThat(stated).isEqualTo(new Capacity(BUCKET_MOST, 0));
		assertThat(this.partition.learn(stated)).isTrue();
		assertThat(requestsPerMinute(INTERACTIVE)).isEqualTo(BUCKET_MOST * INTERACTIVE.share() / 100);
		assertThat(this.partition.tryTake(INTERACTIVE, 0)).isNotNull();
	}

	@Test
	void aCapacityBeyondWhatABucketRefillsFailsConstructionNamingTheRange() {
		assertThatIllegalArgumentException().isThrownBy(() -> new Capacity(BUCKET_MOST + 1, 0))
			.withMessage(
					"requestsPerMinute must be zero or more and at most " + BUCKET_MOST + ", was " + (BUCKET_MOST + 1));
		assertThatIllegalArgumentException().isThrownBy(() -> new Capacity(0, Long.MAX_VALUE))
			.withMessageStartingWith("tokensPerMinute must be zero or more and at most " + BUCKET_MOST);
		assertThat(new Capacity(BUCKET_MOST, BUCKET_MOST).isKnown()).isTrue();
	}

	@Test
	void whatIsLeftOfTheLargestCapacityIsKeptInProportion() {
		Capacity capacity = new Capacity(BUCKET_MOST, BUCKET_MOST);

		this.partition.learn(capacity, new Capacity(BUCKET_MOST / 2, BUCKET_MOST / 2));

		assertThat(requestsAvailable()).isBetween(BUCKET_MOST / 2 - 1, BUCKET_MOST / 2 + 1);
	}

	@Test
	void callsWaitingBeforeTheCapacityIsKnownStayCountedAndLeaveWithoutGoingNegative() {
		for (int i = 0; i < 3; i++) {
			this.partition.waiting(INTERACTIVE, 1);
		}

		this.partition.learn(new Capacity(60, 0));

		assertThat(waiting(INTERACTIVE)).isEqualTo(3);
		for (int i = 0; i < 3; i++) {
			this.partition.waiting(INTERACTIVE, -1);
		}
		assertThat(waiting(INTERACTIVE)).isZero();
	}

	@Test
	void callsWaitingWhenADimensionBecomesKnownStayCountedOnTheNewSupply() {
		this.partition.learn(new Capacity(60, 0));
		this.partition.waiting(INTERACTIVE, 1);

		// Tokens become known: a new supply.
		this.partition.learn(new Capacity(60, 6000));

		assertThat(waiting(INTERACTIVE)).isEqualTo(1);
		this.partition.waiting(INTERACTIVE, -1);
		assertThat(waiting(INTERACTIVE)).isZero();
		assertThat(requestsAvailable()).isEqualTo(60);
	}

	@Test
	void aPoolAloneTakesEverythingTheScopeHoldsAndNothingMore() {
		this.partition.learn(new Capacity(60, 0));

		for (int i = 0; i < 60; i++) {
			assertThat(this.partition.tryTake(BACKGROUND, 0)).as("call %d", i).isNotNull();
		}

		assertThat(this.partition.tryTake(BACKGROUND, 0)).isNull();
		assertThat(this.partition.tryTake(INTERACTIVE, 0)).isNull();
		// The next request refills in a second, at 60 a minute.
		assertThat(this.partition.waitNanos(INTERACTIVE, 0)).isEqualTo(Duration.ofSeconds(1).toNanos());
	}

	@Test
	void aPoolUnderItsShareDrawsTheNextRefillBeforeTheCallsOfAPoolOverIt() {
		this.partition.learn(new Capacity(60, 0));
		while (this.partition.tryTake(BACKGROUND, 0) != null) {
		}
		long[] background = new long[5];
		for (int i = 0; i < background.length; i++) {
			background[i] = this.partition.enter(BACKGROUND);
		}

		long interactive = this.partition.enter(INTERACTIVE);

		assertThat(this.partition.ahead(INTERACTIVE, interactive)).isZero();
		assertThat(this.partition.ahead(BACKGROUND, background[0])).isEqualTo(1);
		assertThat(this.partition.waitNanos(INTERACTIVE, interactive)).isEqualTo(Duration.ofSeconds(1).toNanos());
		this.time.advance(Duration.ofSeconds(1));
		assertThat(this.partition.tryTake(BACKGROUND, background[0])).as("interactive's turn").isNull();
		assertThat(this.partition.tryTake(INTERACTIVE, interactive)).isNotNull();
		this.time.advance(Duration.ofSeconds(1));
		assertThat(this.partition.tryTake(BACKGROUND, background[1])).as("not first in line").isNull();
		assertThat(this.partition.tryTake(BACKGROUND, background[0])).isNotNull();
	}

	@Test
	void callsThatWaitDrawInArrivalOrderWithinAPoolAndByShareAcrossPools() {
		this.partition.learn(new Capacity(60, 0));
		while (this.partition.tryTake(BACKGROUND, 0) != null) {
		}
		List<String> line = new ArrayList<>();
		Map<Long, PoolSettings> pools = new LinkedHashMap<>();
		for (int i = 0; i < 20; i++) {
			pools.put(this.partition.enter(INTERACTIVE), INTERACTIVE);
			pools.put(this.partition.enter(BACKGROUND), BACKGROUND);
		}
		List<Long> served = new ArrayList<>();

		// 18 refills, one a second: each goes to the first of the line.
		for (int i = 0; i < 18; i++) {
			this.time.advance(Duration.ofSeconds(1));
			pools.forEach((ticket, pool) -> {
				if (!served.contains(ticket) && this.partition.tryTake(pool, ticket) != null) {
					served.add(ticket);
					line.add(pool.name());
				}
			});
		}

		assertThat(served).hasSize(18);
		// Shares 70 and 20: 14 and 4 of 18.
		assertThat(line.stream().filter(INTERACTIVE.name()::equals).count()).isBetween(13L, 15L);
		List<Long> interactive = served.stream().filter((ticket) -> pools.get(ticket) == INTERACTIVE).toList();
		assertThat(interactive).isSorted();
		List<Long> background = served.stream().filter((ticket) -> pools.get(ticket) == BACKGROUND).toList();
		assertThat(background).isSorted();
	}

	/**
	 * The promise of a pool under its share on {@link System#nanoTime()}: the interactive
	 * call that comes behind a background line is told the scope's next refill (about 100
	 * ms at 600 a minute, whatever the machine took since), and draws it when that time
	 * has passed, ahead of the line.
	 */
	@Test
	void onTheSystemClockAPoolUnderItsShareDrawsTheNextRefillAfterItsWait() {
		ScopePartition partition = new ScopePartition("acct/gpt-4o", PartitionSettings.defaultPools(),
				SupplySource.of(BucketSource.local(System::nanoTime)), null, 1);
		partition.learn(new Capacity(600, 0));
		while (partition.tryTake(BACKGROUND, 0) != null) {
		}
		long[] background = new long[5];
		for (int i = 0; i < background.length; i++) {
			background[i] = partition.enter(BACKGROUND);
		}
		long interactive = partition.enter(INTERACTIVE);

		long wait = partition.waitNanos(INTERACTIVE, interactive);
		long start = System.nanoTime();

		// Never more than one refill; less by what the machine took since the last draw.
		assertThat(wait).isPositive().isLessThanOrEqualTo(Duration.ofMillis(100).toNanos());
		while (System.nanoTime() - start < wait) {
			Thread.onSpinWait();
		}
		assertThat(partition.tryTake(BACKGROUND, background[0])).as("interactive's turn").isNull();
		assertThat(partition.tryTake(INTERACTIVE, interactive)).isNotNull();
	}

	@Test
	void aPoolThatWasIdleGetsNoCreditForTheTimeItDidNotUse() {
		this.partition.learn(new Capacity(60, 0));
		// Background alone takes a whole minute of the scope.
		while (this.partition.tryTake(BACKGROUND, 0) != null) {
		}
		List<String> line = new ArrayList<>();
		Map<Long, PoolSettings> pools = new LinkedHashMap<>();
		for (int i = 0; i < 10; i++) {
			pools.put(this.partition.enter(EVALUATION), EVALUATION);
			pools.put(this.partition.enter(BACKGROUND), BACKGROUND);
		}
		List<Long> served = new ArrayList<>();

		for (int i = 0; i < 9; i++) {
			this.time.advance(Duration.ofSeconds(1));
			pools.forEach((ticket, pool) -> {
				if (!served.contains(ticket) && this.partition.tryTake(pool, ticket) != null) {
					served.add(ticket);
					line.add(pool.name());
				}
			});
		}

		// Shares 10 and 20 from where the scope is now: background draws two in three,
		// not none until evaluation has caught up on the minute background used.
		assertThat(line).hasSize(9);
		assertThat(line.stream().filter(BACKGROUND.name()::equals).count()).isBetween(5L, 7L);
	}

}
