package io.github.llmresilience.retry.internal;

import java.math.BigInteger;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

import io.github.llmresilience.retry.Backoff;
import io.github.llmresilience.test.SeededTries;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Backoff} waits a uniformly random share of its ceiling: the ceiling starts at
 * the base, doubles per retry and stops at the maximum, without overflowing at any retry
 * number; the wait is never negative, never reaches the ceiling (so never exceeds the
 * maximum), and a random source that misbehaves yields no wait rather than a wrong one.
 */
class BackoffTests {

	private static final Duration BASE = Duration.ofMillis(500);

	private static final Duration MAX = Duration.ofSeconds(30);

	private static final double ALMOST_ONE = Math.nextDown(1.0);

	@Test
	void theCeilingStartsAtTheBaseAndDoublesPerRetryUpToTheMaximum() {
		Backoff backoff = new Backoff(BASE, MAX, () -> 0);
		assertThat(backoff.ceiling(0)).isEqualTo(BASE);
		assertThat(backoff.ceiling(1)).isEqualTo(Duration.ofSeconds(1));
		assertThat(backoff.ceiling(2)).isEqualTo(Duration.ofSeconds(2));
		assertThat(backoff.ceiling(5)).isEqualTo(Duration.ofSeconds(16));
		assertThat(backoff.ceiling(6)).isEqualTo(MAX);
		assertThat(backoff.ceiling(7)).isEqualTo(MAX);
	}

	@Test
	void theCeilingNeverExceedsTheMaximumEvenWhenTheBaseDoes() {
		Backoff backoff = new Backoff(Duration.ofMinutes(1), MAX, () -> ALMOST_ONE);
		assertThat(backoff.ceiling(0)).isEqualTo(MAX);
		assertThat(backoff.ceiling(3)).isEqualTo(MAX);
		assertThat(backoff.delay(0)).isLessThan(MAX);
	}

	@ParameterizedTest
	@ValueSource(ints = { 31, 32, 62, 63, 64, 65, 1_000, Integer.MAX_VALUE })
	void largeRetryNumbersDoNotOverflow(int retry) {
		assertThat(new Backoff(BASE, MAX, () -> ALMOST_ONE).ceiling(retry)).isEqualTo(MAX);
		Duration longest = Duration.ofNanos(Long.MAX_VALUE);
		Backoff unbounded = new Backoff(Duration.ofNanos(1), longest, () -> ALMOST_ONE);
		Duration ceiling = unbounded.ceiling(retry);
		assertThat(ceiling).isPositive().isLessThanOrEqualTo(longest);
		if (retry < 63) {
			assertThat(ceiling).isEqualTo(Duration.ofNanos(1L << retry));
		}
		else {
			assertThat(ceiling).isEqualTo(longest);
		}
		assertThat(unbounded.delay(retry)).isGreaterThanOrEqualTo(Duration.ZERO).isLessThan(ceiling);
	}

	@Test
	void aRandomOfZeroWaitsNothing() {
		Backoff backoff = new Backoff(BASE, MAX, () -> 0);
		for (int retry = 0; retry < 10; retry++) {
			assertThat(backoff.delay(retry)).isZero();
		}
	}

	@Test
	void aRandomJustBelowOneWaitsJustBelowTheCeiling() {
		Backoff backoff = new Backoff(BASE, MAX, () -> ALMOST_ONE);
		for (int retry = 0; retry < 10; retry++) {
			assertThat(backoff.delay(retry)).isEqualTo(backoff.ceiling(retry).minusNanos(1));
		}
	}

	@Test
	void aRandomOfOneHalfWaitsHalfTheCeiling() {
		Backoff backoff = new Backoff(BASE, MAX, () -> 0.5);
		assertThat(backoff.delay(0)).isEqualTo(Duration.ofMillis(250));
		assertThat(backoff.delay(3)).isEqualTo(Duration.ofSeconds(2));
		assertThat(backoff.delay(20)).isEqualTo(Duration.ofSeconds(15));
	}

	@ParameterizedTest
	@ValueSource(doubles = { -0.1, 1.0, 1.5, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY })
	void aRandomOutsideZeroToOneWaitsNothing(double share) {
		Backoff backoff = new Backoff(BASE, MAX, () -> share);
		assertThat(backoff.delay(0)).isZero();
		assertThat(backoff.delay(10)).isZero();
	}

	@Test
	void aZeroBaseNeverWaits() {
		Backoff backoff = new Backoff(Duration.ZERO, MAX, () -> ALMOST_ONE);
		assertThat(backoff.ceiling(10)).isZero();
		assertThat(backoff.delay(10)).isZero();
	}

	@Test
	void everyWaitLiesBetweenZeroAndItsCeilingWhichNeverExceedsTheMaximum() {
		SeededTries.run(1_000, (random) -> {
			Duration base = Duration.ofNanos(random.nextLong(1, Long.MAX_VALUE / 4));
			Duration max = Duration.ofNanos(random.nextLong(1, Long.MAX_VALUE));
			int retry = random.nextInt(0, 100);
			double share = random.nextDouble();
			Backoff backoff = new Backoff(base, max, () -> share);
			BigInteger doubled = BigInteger.valueOf(base.toNanos()).shiftLeft(retry);
			long expected = doubled.min(BigInteger.valueOf(max.toNanos())).longValueExact();
			Duration ceiling = backoff.ceiling(retry);
			assertThat(ceiling).isEqualTo(Duration.ofNanos(expected)).isPositive().isLessThanOrEqualTo(max);
			assertThat(backoff.delay(retry)).isGreaterThanOrEqualTo(Duration.ZERO).isLessThan(ceiling);
		});
	}

	@Test
	void theDefaultRandomSourceJittersWithinTheCeiling() {
		Backoff backoff = new Backoff(BASE, MAX);
		Set<Duration> seen = new HashSet<>();
		for (int i = 0; i < 200; i++) {
			Duration delay = backoff.delay(2);
			assertThat(delay).isGreaterThanOrEqualTo(Duration.ZERO).isLessThan(Duration.ofSeconds(2));
			seen.add(delay);
		}
		assertThat(seen).as("full jitter spreads the waits").hasSizeGreaterThan(100);
	}

}
