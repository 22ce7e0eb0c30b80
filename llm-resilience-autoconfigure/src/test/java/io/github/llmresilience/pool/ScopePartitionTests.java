package io.github.llmresilience.pool;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;

import io.github.llmresilience.pool.internal.CapacityHeaders;
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

	private final ScopePartition partition = new ScopePartition("acct/gpt-4o", PartitionSettings.defaultPools(),
			BucketSource.local(() -> 0L), null);

	private long requestsPerMinute(PoolSettings pool) {
		return this.partition.usage().get(pool.name())[0];
	}

	private long requestsAvailable(PoolSettings pool) {
		return this.partition.usage().get(pool.name())[1];
	}

	private long waiting(PoolSettings pool) {
		return this.partition.usage().get(pool.name())[4];
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

		long part = BUCKET_MOST * INTERACTIVE.share() / 100;
		assertThat(requestsAvailable(INTERACTIVE)).isBetween(part / 2 - 1, part / 2 + 1);
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
	void callsWaitingWhenADimensionBecomesKnownStayCountedAndThePoolLendsOnceTheyLeave() {
		this.partition.learn(new Capacity(60, 0));
		this.partition.waiting(INTERACTIVE, 1);

		// Tokens become known: new buckets for every pool.
		this.partition.learn(new Capacity(60, 6000));

		assertThat(waiting(INTERACTIVE)).isEqualTo(1);
		this.partition.waiting(INTERACTIVE, -1);
		assertThat(waiting(INTERACTIVE)).isZero();
		// Background's own 12, then what interactive holds above half of its 42.
		for (int i = 0; i < 12; i++) {
			assertThat(this.partition.tryTake(BACKGROUND, 0)).isNotNull()
				.extracting(Grant::pool)
				.isEqualTo(BACKGROUND.name());
		}
		assertThat(this.partition.tryTake(BACKGROUND, 0)).isNotNull()
			.extracting(Grant::pool)
			.isEqualTo(INTERACTIVE.name());
	}

}
