package io.github.llmresilience.overload.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import io.github.llmresilience.overload.ClientThrottlingSettings;
import io.github.llmresilience.pool.PoolSettings;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * A provider account's local refusals: the SRE book's probability over a sliding window,
 * each traffic class with its own K, nothing below the minimum requests, and the start
 * and the stop of refusing told once each.
 */
class ProviderThrottleTests {

	private static final long SECOND = 1_000_000_000L;

	private final AtomicLong nanos = new AtomicLong(1_000 * SECOND);

	private final List<String> transitions = new ArrayList<>();

	/** The next uniform draw: refusals are decided by it. */
	private double draw = 0.5;

	private ProviderThrottle throttle(int minimumRequests) {
		ClientThrottlingSettings settings = new ClientThrottlingSettings(true, Duration.ofMinutes(2), minimumRequests,
				2.0, Map.of(PoolSettings.INTERACTIVE, 3.0));
		return new ProviderThrottle("openai/main", settings, this.nanos::get, () -> this.draw,
				(key, refusing) -> this.transitions.add(key + (refusing ? " refusing" : " accepting")));
	}

	@Test
	void theProbabilityIsTheSreBooks() {
		assertThat(ProviderThrottle.probability(100, 100, 2)).isZero();
		assertThat(ProviderThrottle.probability(100, 0, 2)).isCloseTo(100 / 101.0, within(1e-9));
		assertThat(ProviderThrottle.probability(100, 30, 2)).isCloseTo(40 / 101.0, within(1e-9));
		assertThat(ProviderThrottle.probability(100, 30, 3)).isCloseTo(10 / 101.0, within(1e-9));
		assertThat(ProviderThrottle.probability(100, 40, 3)).isZero();
	}

	@Test
	void aHealthyProviderIsNeverRefusedWhateverTheDraw() {
		ProviderThrottle throttle = throttle(20);
		this.draw = 0.0;
		for (int i = 0; i < 1_000; i++) {
			assertThat(throttle.tryPass(PoolSettings.BACKGROUND)).isTrue();
			// One in fifty fails: no provider is perfect.
			throttle.settled(i % 50 != 0);
		}
		assertThat(throttle.state()[0]).isZero();
		assertThat(this.transitions).isEmpty();
	}

	@Test
	void backgroundIsRefusedBeforeInteractiveAndRefusingIsToldOnce() {
		ProviderThrottle throttle = throttle(20);
		// 100 requests, 30 accepted: K 2 refuses 40 %, K 3 refuses 10 %.
		for (int i = 0; i < 100; i++) {
			throttle.settled(i < 30);
		}
		this.draw = 0.2;
		assertThat(throttle.tryPass(PoolSettings.BACKGROUND)).isFalse();
		assertThat(throttle.tryPass(PoolSettings.INTERACTIVE)).isTrue();
		this.draw = 0.05;
		assertThat(throttle.tryPass(PoolSettings.INTERACTIVE)).isFalse();
		assertThat(this.transitions).containsExactly("openai/main refusing");
		// A refusal is a request that was not accepted: the probability holds.
		assertThat(throttle.state()[1]).isEqualTo(102);
		assertThat(throttle.state()[2]).isEqualTo(30);
	}

	@Test
	void forgettingClearsTheWindowAndStopsRefusing() {
		ProviderThrottle throttle = throttle(20);
		for (int i = 0; i < 40; i++) {
			throttle.settled(false);
		}
		throttle.forget();
		this.draw = 0.0;
		assertThat(throttle.tryPass(PoolSettings.BACKGROUND)).isTrue();
		assertThat(throttle.state()[1]).isZero();
	}

	@Test
	void nothingIsRefusedBelowTheMinimumRequests() {
		ProviderThrottle throttle = throttle(20);
		this.draw = 0.0;
		for (int i = 0; i < 19; i++) {
			throttle.settled(false);
		}
		assertThat(throttle.tryPass(PoolSettings.BACKGROUND)).isTrue();
		throttle.settled(false);
		assertThat(throttle.tryPass(PoolSettings.BACKGROUND)).isFalse();
	}

	@Test
	void acceptsAgainEndRefusingAndTheWindowForgets() {
		ProviderThrottle throttle = throttle(20);
		for (int i = 0; i < 40; i++) {
			throttle.settled(false);
		}
		this.draw = 0.5;
		assertThat(throttle.tryPass(PoolSettings.BACKGROUND)).isFalse();
		// The provider recovers: what is let through is accepted.
		for (int i = 0; i < 60; i++) {
			throttle.settled(true);
		}
		assertThat(throttle.tryPass(PoolSettings.BACKGROUND)).isTrue();
		assertThat(this.transitions).containsExactly("openai/main refusing", "openai/main accepting");
		// Past the window, nothing of it counts.
		this.nanos.addAndGet(121 * SECOND);
		assertThat(throttle.state()[1]).isZero();
	}

}
