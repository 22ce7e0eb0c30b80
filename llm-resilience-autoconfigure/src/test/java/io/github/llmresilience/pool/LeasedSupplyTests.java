package io.github.llmresilience.pool;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.llmresilience.pool.LeaseStore.Exchange;
import io.github.llmresilience.pool.LeaseStore.Lease;
import io.github.llmresilience.test.ManualTime;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One pod's leased supply on virtual time. The store here is a test double that answers
 * when the test says (a real Redis answers on its own clock, which the test cannot move;
 * {@code FleetLeasesTests} runs the same supply against real Redis on the system clock):
 * it records every exchange and grants what the test decides.
 */
class LeasedSupplyTests {

	private static final String SCOPE = "acct/gpt-4o";

	/** 600 requests a minute: 50 a period of 5 s. */
	private static final Capacity CAPACITY = new Capacity(600, 0);

	private static final LeaseSettings SETTINGS = new LeaseSettings(true, Duration.ofSeconds(5),
			Duration.ofMillis(500));

	private final ManualTime time = new ManualTime();

	private final ScriptedStore store = new ScriptedStore();

	private final LeasedSupplies supplies = new LeasedSupplies(this.store, SETTINGS, "pod-1", this.time::nanoTime,
			SupplySource.of(BucketSource.local(this.time::nanoTime)));

	private LeasedSupply supply(int pods) {
		return (LeasedSupply) this.supplies.supply(SCOPE, CAPACITY, pods);
	}

	@Test
	void theFirstCallAsksForALeaseAndDrawsOnItLocally() {
		LeasedSupply supply = supply(4);
		assertThat(supply.mode()).isEqualTo(LeasedSupply.Mode.STARTING);
		assertThat(supply.tryTake(1, 0)).isFalse();
		this.supplies.look();
		Exchange first = this.store.last();
		assertThat(first.sequence()).isEqualTo(1);
		// Calls refused ask for themselves: nothing measured yet.
		assertThat(first.askedRequests()).isEqualTo(2);
		assertThat(first.returnedRequests()).isZero();
		this.store.grant(2);
		assertThat(supply.mode()).isEqualTo(LeasedSupply.Mode.LEASED);
		assertThat(supply.tryTake(1, 0)).isTrue();
		assertThat(supply.tryTake(1, 0)).isTrue();
		assertThat(supply.tryTake(1, 0)).isFalse();
		// Drawn locally: nothing more was sent on the call path.
		assertThat(this.store.exchanges).hasSize(1);
	}

	@Test
	void aLeaseIsSizedToTheDemandAndAskedAgainWhenLow() {
		LeasedSupply supply = supply(4);
		this.supplies.look();
		this.store.grant(10);
		// 4 calls a second for 2 s (a look every 500 ms measures them).
		for (int i = 0; i < 4; i++) {
			assertThat(supply.tryTake(1, 0)).isTrue();
			assertThat(supply.tryTake(1, 0)).isTrue();
			this.time.advance(Duration.ofMillis(500));
			this.supplies.look();
		}
		// 8 of 10 taken: low (below a quarter) — the lease was exchanged.
		Exchange renewal = this.store.last();
		assertThat(renewal.sequence()).isEqualTo(2);
		assertThat(renewal.returnedRequests()).isEqualTo(10 - 8);
		// The measured rate (about 3.75 a second after four windows) over 5 s, a
		// quarter more, rounded up.
		long expected = (long) Math.ceil(supply.requestRate() * 5 * 1.25);
		assertThat(renewal.askedRequests()).isEqualTo(expected).isBetween(20L, 25L);
		// While the exchange is under way, the old lease is not drawn on: it went back.
		assertThat(supply.tryTake(1, 0)).isFalse();
	}

	@Test
	void aLineOfCallsWaitingForTheScopeIsAskedForThoughItDrewNothing() {
		LeasedSupply supply = supply(4);
		this.supplies.look();
		this.store.grant(4);
		for (int i = 0; i < 4; i++) {
			assertThat(supply.tryTake(1, 0)).isTrue();
		}
		// 30 calls stand in the scope's line: the last one asks when the supply will
		// hold all of them (the partition's question), and waits; none of them draws.
		assertThat(supply.nanosUntil(30, 0)).isPositive();
		this.time.advance(Duration.ofMillis(500));
		this.supplies.look();

		Exchange renewal = this.store.last();
		assertThat(renewal.sequence()).isEqualTo(2);
		// The line is demand: the lease asks for it on top of the measured rate, up to
		// two periods of the scope's refill (100).
		long measured = (long) Math.ceil(supply.requestRate() * 5 * 1.25);
		assertThat(renewal.askedRequests()).isEqualTo(Math.min(100, measured + 30));
	}

	@Test
	void callsThatCannotWaitAPeriodAreAskedForAsUrgentAndTheRestIsNot() {
		LeasedSupply supply = supply(4);
		this.supplies.look();
		this.store.grant(2);
		assertThat(supply.tryTake(1, 0)).isTrue();
		assertThat(supply.tryTake(1, 0)).isTrue();
		// A background line of 30 (120 s of patience) and an interactive call behind 2 of
		// them (2 s, less than the 5 s period).
		assertThat(supply.nanosUntil(30, 0)).isPositive();
		supply.pressing(30, Duration.ofSeconds(120).toNanos());
		assertThat(supply.nanosUntil(3, 0)).isPositive();
		supply.pressing(3, Duration.ofSeconds(2).toNanos());
		this.time.advance(Duration.ofMillis(500));
		this.supplies.look();

		Exchange renewal = this.store.last();
		assertThat(renewal.askedRequests()).isGreaterThanOrEqualTo(30);
		assertThat(renewal.urgentRequests()).isEqualTo(3);
		this.store.grant(3);
		// Asked for once: the next exchange carries what is pressing then, here nothing.
		for (int i = 0; i < 3; i++) {
			assertThat(supply.tryTake(1, 0)).isTrue();
		}
		this.time.advance(Duration.ofMillis(500));
		this.supplies.look();
		assertThat(this.store.last().urgentRequests()).isZero();
	}

	@Test
	void aPodLooksAtItsLeaseEveryTenthOfThePeriodBetween10And100Milliseconds() {
		assertThat(LeasedSupply.tickNanos(new LeaseSettings(true, Duration.ofSeconds(5), Duration.ofSeconds(1))))
			.isEqualTo(Duration.ofMillis(100).toNanos());
		assertThat(LeasedSupply.tickNanos(new LeaseSettings(true, Duration.ofMillis(500), Duration.ofMillis(100))))
			.isEqualTo(Duration.ofMillis(50).toNanos());
		assertThat(LeasedSupply.tickNanos(new LeaseSettings(true, Duration.ofMillis(100), Duration.ofMillis(50))))
			.isEqualTo(Duration.ofMillis(10).toNanos());
	}

	@Test
	void anIdlePodReturnsWhatItHoldsAtThePeriodsEndAndHoldsNothing() {
		LeasedSupply supply = supply(4);
		this.supplies.look();
		this.store.grant(20);
		assertThat(supply.tryTake(1, 0)).isTrue();
		// Idle from now: at four fifths of the period the lease is exchanged, for
		// nothing.
		for (int i = 0; i < 8; i++) {
			this.time.advance(Duration.ofMillis(500));
			this.supplies.look();
		}
		Exchange end = this.store.last();
		assertThat(end.sequence()).isEqualTo(2);
		assertThat(end.returnedRequests()).isEqualTo(19);
		assertThat(end.askedRequests()).isZero();
		this.store.grant(0);
		assertThat(supply.requests()).isZero();
		// Idle on: no more exchanges, nothing held.
		for (int i = 0; i < 40; i++) {
			this.time.advance(Duration.ofMillis(500));
			this.supplies.look();
		}
		assertThat(this.store.exchanges).hasSize(2);
		assertThat(supply.requests()).isZero();
	}

	@Test
	void aLeaseIsNeverDrawnOnAfterItsPeriodTimedFromTheAsk() {
		LeasedSupply supply = supply(4);
		long asked = this.time.nanoTime();
		this.supplies.look();
		// The answer comes 400 ms after the ask: the lease ends 4.6 s after it.
		this.time.advance(Duration.ofMillis(400));
		this.store.grant(1000);
		assertThat(supply.leaseEndNanos() - asked).isEqualTo(Duration.ofSeconds(5).toNanos());
		this.time.advance(Duration.ofMillis(4599));
		assertThat(supply.tryTake(1, 0)).isTrue();
		this.time.advance(Duration.ofMillis(1));
		assertThat(supply.tryTake(1, 0)).isFalse();
		assertThat(supply.leaseEndNanos()).isEqualTo(Long.MIN_VALUE);
	}

	@Test
	void anAnswerThatComesAfterTheExchangeWasGivenUpIsNeverDrawnOn() {
		LeasedSupply supply = supply(4);
		this.supplies.look();
		CompletableFuture<Lease> late = this.store.answers.get(0);
		this.time.advance(Duration.ofMillis(500));
		this.supplies.look();
		late.complete(new Lease(1, 50, 0, 0));
		// The pod draws on its equal part (600 / 4, full: it never held a lease), not on
		// the 50 that came late.
		assertThat(supply.mode()).isEqualTo(LeasedSupply.Mode.PART);
		assertThat(supply.requests()).isEqualTo(150);
		// Given up: the next exchange (for the part's calls' demand) goes under a new
		// number.
		assertThat(supply.tryTake(1, 0)).isTrue();
		this.time.advance(Duration.ofMillis(500));
		this.supplies.look();
		assertThat(this.store.last().sequence()).isEqualTo(2);
	}

	@Test
	void aPodThatLosesTheStoreKeepsItsLeaseUntilItEndsThenItsEqualPart() {
		LeasedSupply supply = supply(4);
		this.supplies.look();
		this.store.grant(100);
		// The store is gone from now: the lease still serves, locally, until its end.
		this.store.down = true;
		for (int i = 0; i < 8; i++) {
			assertThat(supply.tryTake(1, 0)).isTrue();
			this.time.advance(Duration.ofMillis(500));
			this.supplies.look();
		}
		// At 4 s the lease's last fifth began: its exchange failed, so what was left went
		// back (possibly: the store may have applied it) and the pod draws on its equal
		// part, which starts empty.
		assertThat(supply.mode()).isEqualTo(LeasedSupply.Mode.PART);
		assertThat(supply.requests()).isZero();
		// 600 / 4 = 150 a minute: one every 400 ms.
		this.time.advance(Duration.ofMillis(400));
		assertThat(supply.tryTake(1, 0)).isTrue();
		assertThat(supply.tryTake(1, 0)).isFalse();
		// The store is back: the next exchange debits what the part sent, and the pod
		// leases again.
		this.store.down = false;
		this.time.advance(Duration.ofMillis(500));
		long held = supply.requests();
		this.supplies.look();
		Exchange back = this.store.last();
		// The part is below full by what it sent lately (as the provider's bucket sees
		// it): 150 less what it holds.
		assertThat(back.debitRequests()).isEqualTo(150 - held).isGreaterThanOrEqualTo(148);
		this.store.grant(30);
		assertThat(supply.mode()).isEqualTo(LeasedSupply.Mode.LEASED);
		assertThat(supply.requests()).isEqualTo(30);
	}

	@Test
	void aPodThatNeverReachedTheStoreDrawsOnItsFullEqualPart() {
		this.store.down = true;
		LeasedSupply supply = supply(4);
		this.supplies.look();
		assertThat(supply.mode()).isEqualTo(LeasedSupply.Mode.PART);
		assertThat(supply.requests()).isEqualTo(150);
	}

	@Test
	void aRequestTakenAnywayWithoutALeaseIsPaidFromTheNext() {
		LeasedSupply supply = supply(4);
		supply.takeAnyway(3, 0);
		assertThat(supply.requests()).isEqualTo(-3);
		this.supplies.look();
		this.store.grant(10);
		assertThat(supply.requests()).isEqualTo(7);
	}

	@Test
	void aCallThatFindsItsLeaseShortLooksAgainAfterAnExchangeOrWaitsTheFleetsRefill() {
		LeasedSupply supply = supply(4);
		this.supplies.look();
		this.store.grant(1);
		assertThat(supply.nanosUntil(1, 0)).isZero();
		assertThat(supply.tryTake(1, 0)).isTrue();
		// Short: an exchange may bring more at once; look again after a round trip.
		assertThat(supply.nanosUntil(1, 0)).isEqualTo(LeasedSupply.EXCHANGE_WAIT_NANOS);
		assertThat(supply.tryTake(1, 0)).isFalse();
		this.supplies.look();
		assertThat(this.store.last().sequence()).isEqualTo(2);
		// The fleet's bucket is empty: 600 a minute refill one in 100 ms.
		this.store.grant(0);
		assertThat(supply.nanosUntil(1, 0)).isEqualTo(Duration.ofMillis(100).toNanos());
	}

	/** Records each exchange; grants what the test says, or fails when "down". */
	static final class ScriptedStore implements LeaseStore {

		final List<Exchange> exchanges = new ArrayList<>();

		final List<CompletableFuture<Lease>> answers = new ArrayList<>();

		boolean down;

		@Override
		public synchronized CompletableFuture<Lease> exchange(Exchange exchange) {
			this.exchanges.add(exchange);
			CompletableFuture<Lease> answer = new CompletableFuture<>();
			if (this.down) {
				answer.completeExceptionally(new IllegalStateException("store down"));
			}
			this.answers.add(answer);
			return answer;
		}

		synchronized Exchange last() {
			return this.exchanges.get(this.exchanges.size() - 1);
		}

		void grant(long requests) {
			Exchange last = last();
			this.answers.get(this.answers.size() - 1).complete(new Lease(last.sequence(), requests, 0, 0));
		}

	}

}
