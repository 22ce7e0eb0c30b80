package io.github.llmresilience.execute;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

import io.github.llmresilience.change.StateChanges;
import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.execute.ChainStep.Skip;
import io.github.llmresilience.pool.BucketSource;
import io.github.llmresilience.pool.Capacity;
import io.github.llmresilience.pool.Grant;
import io.github.llmresilience.pool.PartitionSettings;
import io.github.llmresilience.pool.PoolSettings;
import io.github.llmresilience.pool.Pools;
import io.github.llmresilience.pool.ScopePartition;
import io.github.llmresilience.pool.SupplySource;
import io.github.llmresilience.test.ManualTime;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One call's wait for a release, on its own: two targets as places (a quota scope that a
 * gate or a spent pool share holds), the real pools, and manual time. No facade, no walk.
 */
class CallWaitTests {

	private static final long MILLI = 1_000_000L;

	private static final PoolSettings INTERACTIVE = PoolSettings.interactive();

	private final ManualTime time = new ManualTime();

	private final LongSupplier nanoTime = () -> {
		Instant now = this.time.instant();
		return now.getEpochSecond() * 1_000_000_000L + now.getNano();
	};

	private static final List<ChainStep> GATED = List.of(skipped("a", Skip.SCOPE_GATED),
			skipped("b", Skip.SCOPE_GATED));

	private Pools pools(boolean partitioned) {
		PartitionSettings settings = new PartitionSettings(false, PartitionSettings.defaultPools(),
				Map.of("acct/a", new Capacity(600, 0)), false);
		return new Pools(partitioned ? settings.on() : settings, SupplySource.of(BucketSource.local(this.nanoTime)),
				new StateChanges(this.time));
	}

	/**
	 * {@code timeouts.call}'s default: how long a call without a deadline waits for
	 * gates.
	 */
	private static final Duration CALL = Duration.ofSeconds(60);

	private CallWait waitOn(Pools pools) {
		return waitOn(pools, CALL);
	}

	private CallWait waitOn(Pools pools, Duration gateBudget) {
		return new CallWait(pools, INTERACTIVE, this.time, this.nanoTime, gateBudget.toNanos());
	}

	@Test
	void aWalkThatMetOnlyGatesWaitsForTheEarliestReleaseInThePoolsQueue() {
		Pools pools = pools(false);
		Place a = new Place(pools, "acct/a").gatedFor(Duration.ofMillis(500));
		Place b = new Place(pools, "acct/b").gatedFor(Duration.ofSeconds(1));
		CallWait wait = waitOn(pools);

		long nanos = wait.next(new Place[] { a, b }, GATED, Long.MAX_VALUE);

		assertThat(nanos).isEqualTo(500 * MILLI);
		assertThat(pools.queued(INTERACTIVE.name())).isEqualTo(1);
		this.time.advance(Duration.ofNanos(nanos));
		assertThat(wait.walkAgain(GATED.size(), Long.MAX_VALUE)).isTrue();
		assertThat(pools.queued(INTERACTIVE.name())).isZero();
	}

	@Test
	void aWalkWithAnyStepThatIsNoRateLimitDoesNotWait() {
		Pools pools = pools(false);
		Place a = new Place(pools, "acct/a").gatedFor(Duration.ofMillis(500));
		Place b = new Place(pools, "acct/b");
		List<ChainStep> steps = List.of(skipped("a", Skip.SCOPE_GATED),
				new ChainStep("b", 1, Verdict.of(Outcome.AVAILABILITY), null, Duration.ZERO, null));

		assertThat(waitOn(pools).next(new Place[] { a, b }, steps, Long.MAX_VALUE)).isEqualTo(-1);
		assertThat(CallWait.onlyThrottled(steps, 1)).isFalse();
		assertThat(CallWait.onlyThrottled(steps, 2)).isFalse();
		assertThat(CallWait.onlyThrottled(steps, 0)).isFalse();
		assertThat(pools.queued(INTERACTIVE.name())).isZero();
	}

	@Test
	void anInteractiveCallWaitsForAGateBeyondItsPoolsMaxWaitWhenNothingElseCanServe() {
		Pools pools = pools(false);
		Place a = new Place(pools, "acct/a").gatedFor(Duration.ofSeconds(5));
		Place b = new Place(pools, "acct/b").gatedFor(Duration.ofSeconds(3));

		// The provider's Retry-After, not the pool's 2 s, bounds the wait.
		assertThat(waitOn(pools).next(new Place[] { a, b }, GATED, Long.MAX_VALUE)).isEqualTo(3000 * MILLI);
	}

	@Test
	void aGateBeyondTheCallsOwnDeadlineOrItsWaitingTimeEndsTheCall() {
		Pools pools = pools(false);
		Place b = new Place(pools, "acct/b").gatedFor(Duration.ofSeconds(3));
		Place soon = new Place(pools, "acct/a").gatedFor(Duration.ofMillis(500));
		long deadline = this.nanoTime.getAsLong() + 300 * MILLI;
		assertThat(waitOn(pools).next(new Place[] { soon, b }, GATED, deadline)).isEqualTo(-1);

		Place late = new Place(pools, "acct/a").gatedFor(CALL.plusSeconds(1));
		Place later = new Place(pools, "acct/b").gatedFor(CALL.plusSeconds(2));
		assertThat(waitOn(pools).next(new Place[] { late, later }, GATED, Long.MAX_VALUE)).isEqualTo(-1);
		assertThat(pools.queued(INTERACTIVE.name())).isZero();
	}

	@Test
	void waitsForGatesAddUpAgainstTheCallsWaitingTime() {
		Pools pools = pools(false);
		Place a = new Place(pools, "acct/a").gatedFor(Duration.ofMillis(1500));
		Place b = new Place(pools, "acct/b").gatedFor(Duration.ofSeconds(3));
		CallWait wait = waitOn(pools, Duration.ofSeconds(2));

		assertThat(wait.next(new Place[] { a, b }, GATED, Long.MAX_VALUE)).isEqualTo(1500 * MILLI);
		this.time.advance(Duration.ofMillis(1500));
		assertThat(wait.walkAgain(GATED.size(), Long.MAX_VALUE)).isTrue();
		a.gatedFor(Duration.ofMillis(1000));
		List<ChainStep> again = List.of(GATED.get(0), GATED.get(1), GATED.get(0), GATED.get(1));

		// 1.5 s of the call's 2 s are spent: a second release 1 s away is too far.
		assertThat(wait.next(new Place[] { a, b }, again, Long.MAX_VALUE)).isEqualTo(-1);
	}

	@Test
	void standingInAScopesLineIsBoundedByThePoolsMaxWait() {
		Pools pools = pools(true);
		Place a = new Place(pools, "acct/a");
		Place b = new Place(pools, "acct/b").gatedFor(Duration.ofSeconds(30));
		ScopePartition partition = spend(pools, a);
		// 25 calls stand in the line ahead: the 26th's turn is 2.6 s away at 600 a
		// minute, beyond interactive's 2 s.
		for (int i = 0; i < 25; i++) {
			pools.enter(partition, INTERACTIVE);
		}

		assertThat(waitOn(pools).next(new Place[] { a, b }, SPENT, Long.MAX_VALUE)).isEqualTo(-1);
		assertThat(pools.ahead(partition, INTERACTIVE, 0)).isEqualTo(25);
	}

	@Test
	void aGateWaitThatTookLongerThanAskedCountsAgainstTheCallsWaitingTime() {
		Pools pools = pools(false);
		Place a = new Place(pools, "acct/a").gatedFor(Duration.ofMillis(500));
		Place b = new Place(pools, "acct/b").gatedFor(Duration.ofSeconds(3));
		CallWait wait = waitOn(pools, Duration.ofSeconds(2));
		assertThat(wait.next(new Place[] { a, b }, GATED, Long.MAX_VALUE)).isEqualTo(500 * MILLI);
		this.time.advance(Duration.ofMillis(1800));
		assertThat(wait.walkAgain(GATED.size(), Long.MAX_VALUE)).isTrue();
		a.gatedFor(Duration.ofMillis(500));
		List<ChainStep> again = List.of(GATED.get(0), GATED.get(1), GATED.get(0), GATED.get(1));

		// 1.8 s of the call's 2 s went by (the timer fired late, as on a busy machine),
		// not the 0.5 s asked for; a line's turns are counted the same way.
		assertThat(wait.next(new Place[] { a, b }, again, Long.MAX_VALUE)).isEqualTo(-1);
	}

	@Test
	void callsWaitingForOneReleaseLeaveAMillisecondApartInArrivalOrder() {
		Pools pools = pools(false);
		Place a = new Place(pools, "acct/a").gatedFor(Duration.ofMillis(200));
		Place b = new Place(pools, "acct/b").gatedFor(Duration.ofSeconds(1));
		Place[] places = { a, b };

		long first = waitOn(pools).next(places, GATED, Long.MAX_VALUE);
		long second = waitOn(pools).next(places, GATED, Long.MAX_VALUE);

		assertThat(second - first).isEqualTo(MILLI);
		assertThat(pools.queued(INTERACTIVE.name())).isEqualTo(2);
	}

	@Test
	void aSpentScopeGivesTheCallItsPlaceInTheLineWhichDrawsWhenTheSupplyHoldsIt() {
		Pools pools = pools(true);
		Place a = new Place(pools, "acct/a");
		Place b = new Place(pools, "acct/b").gatedFor(Duration.ofSeconds(5));
		ScopePartition partition = spend(pools, a);
		CallWait wait = waitOn(pools);

		long nanos = wait.next(new Place[] { a, b }, SPENT, Long.MAX_VALUE);

		// One request of 600 a minute refills in 100 ms.
		assertThat(nanos).isEqualTo(100 * MILLI);
		assertThat(wait.draw(a, partition)).as("not refilled yet").isNull();
		assertThat(wait.drawNanos(a)).isEqualTo(nanos);
		this.time.advance(Duration.ofNanos(nanos));
		assertThat(wait.walkAgain(SPENT.size(), Long.MAX_VALUE)).isTrue();
		Grant grant = wait.draw(a, partition);
		assertThat(grant).as("its turn").isNotNull();
		assertThat(pools.queued(INTERACTIVE.name())).isZero();
		assertThat(pools.ahead(partition, INTERACTIVE, 0)).isZero();
	}

	@Test
	void aCancelledWaitGivesItsQueueSlotAndItsPlaceInTheLineBack() {
		Pools pools = pools(true);
		Place a = new Place(pools, "acct/a");
		Place b = new Place(pools, "acct/b").gatedFor(Duration.ofSeconds(5));
		spend(pools, a);
		CallWait first = waitOn(pools);
		long firstNanos = first.next(new Place[] { a, b }, SPENT, Long.MAX_VALUE);
		long behind = waitOn(pools).next(new Place[] { a, b }, SPENT, Long.MAX_VALUE);
		assertThat(behind).isGreaterThan(firstNanos);

		first.cancel();

		assertThat(pools.queued(INTERACTIVE.name())).isEqualTo(1);
		// The first call's place is free: the next call to come waits no longer than
		// the second did.
		CallWait next = waitOn(pools);
		assertThat(next.next(new Place[] { a, b }, SPENT, Long.MAX_VALUE)).isLessThanOrEqualTo(behind);
	}

	@Test
	void onTheSystemClockAWaitIsTheGatesRemainderWithinTolerance() {
		Clock clock = Clock.systemUTC();
		Pools pools = new Pools(PartitionSettings.defaults(), SupplySource.of(BucketSource.local(System::nanoTime)),
				new StateChanges(clock));
		Place a = new Place(pools, "acct/a", clock).gatedUntil(clock.instant().plusMillis(800));
		Place b = new Place(pools, "acct/b", clock).gatedUntil(clock.instant().plusSeconds(5));
		CallWait wait = new CallWait(pools, INTERACTIVE, clock, System::nanoTime, CALL.toNanos());

		long nanos = wait.next(new Place[] { a, b }, GATED, Long.MAX_VALUE);

		// Whatever the machine took between the two lines, never more than the gate
		// and never below the shortest wait.
		assertThat(nanos).isBetween(CallWait.MIN_WAIT_NANOS, 800 * MILLI);
		assertThat(nanos).isGreaterThan(300 * MILLI);
		wait.cancel();
		assertThat(pools.queued(INTERACTIVE.name())).isZero();
	}

	/** A walk that found the first place's share spent and the second gated. */
	private static final List<ChainStep> SPENT = List.of(skipped("a", Skip.POOL_EXHAUSTED),
			skipped("b", Skip.SCOPE_GATED));

	/**
	 * Spend the scope's supply at the place: all of its 600 requests a minute, which a
	 * lone pool may take.
	 */
	private static ScopePartition spend(Pools pools, Place place) {
		ScopePartition partition = place.partition();
		assertThat(partition).isNotNull();
		while (pools.tryTake(partition, INTERACTIVE, 0) != null) {
		}
		return partition;
	}

	private static ChainStep skipped(String target, Skip why) {
		return new ChainStep(target, 0, null, why, Duration.ZERO, null);
	}

	/** A target as the wait sees it: a quota scope, gated or not, with its partition. */
	private final class Place implements CallWait.Place {

		private final String scope;

		private final Clock clock;

		private final @Nullable ScopePartition partition;

		private Instant gatedUntil = Instant.EPOCH;

		Place(Pools pools, String scope) {
			this(pools, scope, CallWaitTests.this.time);
		}

		Place(Pools pools, String scope, Clock clock) {
			this.scope = scope;
			this.clock = clock;
			this.partition = pools.scope(scope);
		}

		Place gatedFor(Duration duration) {
			return gatedUntil(this.clock.instant().plus(duration));
		}

		Place gatedUntil(Instant until) {
			this.gatedUntil = until;
			return this;
		}

		@Override
		public @Nullable ScopePartition partition() {
			return this.partition;
		}

		@Override
		public String quotaScope() {
			return this.scope;
		}

		@Override
		public long gateNanos(Instant now) {
			return Math.max(0, this.gatedUntil.toEpochMilli() - now.toEpochMilli()) * MILLI;
		}

		@Override
		public boolean isGated(Instant now) {
			return this.gatedUntil.isAfter(now);
		}

		@Override
		public long slotNanos() {
			return 0;
		}

	}

}
