package io.github.llmresilience.data.redis;

import java.time.Duration;

import io.github.llmresilience.fleet.FleetSettings;
import io.github.llmresilience.pool.Capacity;
import io.github.llmresilience.pool.LeaseStore.Exchange;
import io.github.llmresilience.pool.LeaseStore.Lease;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The lease script on the real Redis of {@code .ci/run}, one exchange at a time: the
 * shared bucket, the room live leases hold, what comes back and what is debited, and
 * exchanges applied once.
 */
class RedisLeaseStoreTests {

	private static final String SCOPE = "acct-primary/gpt-4o";

	/** 6000 requests a minute: 100 a second refill. */
	private static final Capacity CAPACITY = new Capacity(6000, 0);

	/** What refills in half a second between two exchanges of a slow machine. */
	private static final long REFILL_SLACK = 50;

	private FleetPods fleet;

	private LettuceConnectionFactory connection;

	private RedisLeaseStore store;

	@BeforeEach
	void connect() {
		this.fleet = FleetPods.onCiRedis();
		this.connection = this.fleet.connection(FleetSettings.defaults(this.fleet.namespace));
		this.store = new RedisLeaseStore(new ReactiveStringRedisTemplate(this.connection), this.fleet.namespace);
	}

	@AfterEach
	void close() {
		this.connection.destroy();
		this.fleet.close();
	}

	/** An exchange whose requests are all urgent: the whole bucket may grant them. */
	private Lease exchange(String holder, long sequence, long returned, long asked, long debit, long periodMillis) {
		return this.store
			.exchange(new Exchange(SCOPE, holder, sequence, CAPACITY, periodMillis, returned, 0, asked, 0, debit, 0,
					asked))
			.join();
	}

	private Lease ask(String holder, long sequence, long asked) {
		return exchange(holder, sequence, 0, asked, 0, 60_000);
	}

	@Test
	void requestsThatCanWaitLeaveTheReserveToUrgentOnes() {
		// 6000 a minute: a reserve of half a second's refill, 50.
		Lease background = this.store.exchange(new Exchange(SCOPE, "busy", 1, CAPACITY, 60_000, 0, 0, 6000, 0, 0, 0, 0))
			.join();
		assertThat(background.requests()).isBetween(5950L - 2, 5950L);
		Lease interactive = this.store.exchange(new Exchange(SCOPE, "other", 1, CAPACITY, 60_000, 0, 0, 3, 0, 0, 0, 3))
			.join();
		assertThat(interactive.requests()).isEqualTo(3);
		// What can wait gets nothing more from the reserve; an urgent part still does.
		Lease more = this.store.exchange(new Exchange(SCOPE, "other", 2, CAPACITY, 60_000, 3, 0, 10, 0, 0, 0, 0))
			.join();
		assertThat(more.requests()).isZero();
		Lease urgent = this.store.exchange(new Exchange(SCOPE, "third", 1, CAPACITY, 60_000, 0, 0, 10, 0, 0, 0, 4))
			.join();
		assertThat(urgent.requests()).isEqualTo(4);
	}

	@Test
	void aNewScopeStartsFullAndNoLeaseTakesMoreThanTheBucketHolds() {
		assertThat(ask("a", 1, 4000).requests()).isEqualTo(4000);
		// 2000 left, and whatever refilled meanwhile cannot be: the leases hold the room.
		assertThat(ask("b", 1, 4000).requests()).isEqualTo(2000);
		assertThat(ask("c", 1, 10).requests()).isZero();
	}

	@Test
	void anExchangeSentTwiceIsAppliedOnceAndAStaleOneGrantsNothing() {
		Lease first = ask("a", 1, 1000);
		Lease again = ask("a", 1, 1000);
		assertThat(again.requests()).isEqualTo(first.requests()).isEqualTo(1000);
		// Only one thousand is held: 5000 remain for another.
		assertThat(ask("b", 1, 6000).requests()).isEqualTo(5000);
		assertThat(ask("a", 2, 0).requests()).isZero();
		assertThat(ask("a", 1, 1000).requests()).as("stale").isZero();
	}

	@Test
	void whatComesBackIsCreditedAtMostWhatTheLeaseGrantedAndNeverBeyondTheCapacity() {
		ask("a", 1, 1000);
		ask("b", 1, 5000);
		// a says 9999 came back of its 1000: 1000 are credited; b still holds 5000.
		exchange("a", 2, 9999, 0, 0, 60_000);
		assertThat(ask("c", 1, 6000).requests()).isEqualTo(1000);
	}

	@Test
	void aReturnIsCreditedOnlyForTheLeaseJustBeforeTheExchange() {
		ask("a", 1, 1000);
		// Exchange 2 never arrived: 3 returns what "it" left. Lease 1 ends uncredited.
		exchange("a", 3, 500, 0, 0, 60_000);
		// (What refilled between the exchanges is in too: 100 a second.)
		assertThat(ask("b", 1, 6000).requests()).isBetween(5000L, 5000L + REFILL_SLACK);
	}

	@Test
	void whatAPodSentOutsideLeasesIsDebited() {
		exchange("a", 1, 0, 0, 2500, 60_000);
		assertThat(ask("b", 1, 6000).requests()).isBetween(3500L, 3500L + REFILL_SLACK);
	}

	@Test
	void aLeaseNobodyReturnsHoldsItsRoomUntilItsEndAndIsThenGone() {
		// a takes the whole bucket for 300 ms and dies.
		Lease dead = exchange("a", 1, 0, 6000, 0, 300);
		assertThat(dead.requests()).isEqualTo(6000);
		assertThat(ask("b", 1, 100).requests()).isZero();
		// Once it ends, the bucket refills into its room at 100 a second: never at once
		// (its pod may have sent it all).
		long[] sequence = { 1 };
		Lease refilled = await().atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> ask("b", ++sequence[0], 100), (lease) -> lease.requests() > 0);
		assertThat(refilled.serverMillis()).isGreaterThanOrEqualTo(dead.serverMillis() + 300);
		assertThat(refilled.requests()).isLessThan(100);
	}

}
