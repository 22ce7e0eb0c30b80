package io.github.llmresilience.breaker;

import java.time.Duration;
import java.util.function.Consumer;

import io.github.llmresilience.timeout.TimeLimits;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The ranges {@link BreakerSettings} checks when built: each bound builds, one past it
 * fails naming the component and the range.
 */
class BreakerSettingsTests {

	private static final Duration ONE_NANO = Duration.ofNanos(1);

	private static final Duration PAST_MAX = TimeLimits.MAX.plus(ONE_NANO);

	@Test
	void theDefaultsBuild() {
		BreakerSettings defaults = BreakerSettings.defaults();
		assertThat(defaults.slowFirstTokenDuration()).isEqualTo(BreakerSettings.DEFAULT_SLOW_FIRST_TOKEN);
		assertThat(defaults.halfOpenTimeout()).isEqualTo(BreakerSettings.DEFAULT_HALF_OPEN_TIMEOUT);
	}

	@Test
	void slidingWindowSizeIsFromOneToTenThousand() {
		assertThat(with((v) -> v.slidingWindowSize = 1).slidingWindowSize()).isEqualTo(1);
		assertThat(with((v) -> v.slidingWindowSize = 10_000).slidingWindowSize()).isEqualTo(10_000);
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.slidingWindowSize = 0))
			.withMessage("slidingWindowSize must be between 1 and 10000, was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.slidingWindowSize = 10_001))
			.withMessage("slidingWindowSize must be between 1 and 10000, was 10001");
	}

	@Test
	void minimumCallsIsFromOneToTenThousand() {
		assertThat(with((v) -> v.minimumCalls = 1).minimumCalls()).isEqualTo(1);
		assertThat(with((v) -> v.minimumCalls = 10_000).minimumCalls()).isEqualTo(10_000);
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.minimumCalls = 0))
			.withMessage("minimumCalls must be between 1 and 10000, was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.minimumCalls = 10_001))
			.withMessage("minimumCalls must be between 1 and 10000, was 10001");
	}

	@Test
	void failureRateThresholdIsFromOneToOneHundredPercent() {
		assertThat(with((v) -> v.failureRateThreshold = 1).failureRateThreshold()).isEqualTo(1);
		assertThat(with((v) -> v.failureRateThreshold = 100).failureRateThreshold()).isEqualTo(100);
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.failureRateThreshold = Math.nextDown(1f)))
			.withMessage("failureRateThreshold must be between 1 and 100, was " + Math.nextDown(1f));
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.failureRateThreshold = Math.nextUp(100f)))
			.withMessage("failureRateThreshold must be between 1 and 100, was " + Math.nextUp(100f));
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.failureRateThreshold = Float.NaN))
			.withMessage("failureRateThreshold must be between 1 and 100, was NaN");
	}

	@Test
	void slowCallRateThresholdIsFromOneToOneHundredPercent() {
		assertThat(with((v) -> v.slowCallRateThreshold = 1).slowCallRateThreshold()).isEqualTo(1);
		assertThat(with((v) -> v.slowCallRateThreshold = 100).slowCallRateThreshold()).isEqualTo(100);
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.slowCallRateThreshold = Math.nextDown(1f)))
			.withMessage("slowCallRateThreshold must be between 1 and 100, was " + Math.nextDown(1f));
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.slowCallRateThreshold = Math.nextUp(100f)))
			.withMessage("slowCallRateThreshold must be between 1 and 100, was " + Math.nextUp(100f));
	}

	@Test
	void slowCallDurationIsPositiveUpToTheLimit() {
		assertThat(with((v) -> v.slowCallDuration = ONE_NANO).slowCallDuration()).isEqualTo(ONE_NANO);
		assertThat(with((v) -> v.slowCallDuration = TimeLimits.MAX).slowCallDuration()).isEqualTo(TimeLimits.MAX);
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.slowCallDuration = Duration.ZERO))
			.withMessage("slowCallDuration must be a positive duration of at most 366 days, was PT0S");
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.slowCallDuration = PAST_MAX))
			.withMessage("slowCallDuration must be a positive duration of at most 366 days, was " + PAST_MAX);
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.slowCallDuration = null))
			.withMessage("slowCallDuration must be a positive duration of at most 366 days, was null");
	}

	@Test
	void openDurationIsPositiveUpToTheLimit() {
		assertThat(with((v) -> v.openDuration = ONE_NANO).openDuration()).isEqualTo(ONE_NANO);
		assertThat(with((v) -> {
			v.openDuration = TimeLimits.MAX;
			v.openDurationMax = TimeLimits.MAX;
		}).openDuration()).isEqualTo(TimeLimits.MAX);
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.openDuration = Duration.ZERO))
			.withMessage("openDuration must be a positive duration of at most 366 days, was PT0S");
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.openDuration = PAST_MAX))
			.withMessage("openDuration must be a positive duration of at most 366 days, was " + PAST_MAX);
	}

	@Test
	void openDurationMaxIsFromTheOpenDurationToTheLimit() {
		assertThat(with((v) -> v.openDurationMax = Duration.ofSeconds(30)).openDurationMax())
			.isEqualTo(Duration.ofSeconds(30));
		assertThat(with((v) -> v.openDurationMax = TimeLimits.MAX).openDurationMax()).isEqualTo(TimeLimits.MAX);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> with((v) -> v.openDurationMax = Duration.ofSeconds(30).minus(ONE_NANO)))
			.withMessage("openDurationMax must be at least openDuration (PT30S), was PT29.999999999S");
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.openDurationMax = PAST_MAX))
			.withMessage("openDurationMax must be a positive duration of at most 366 days, was " + PAST_MAX);
	}

	@Test
	void halfOpenCallsIsFromOneToOneHundred() {
		assertThat(with((v) -> v.halfOpenCalls = 1).halfOpenCalls()).isEqualTo(1);
		assertThat(with((v) -> v.halfOpenCalls = 100).halfOpenCalls()).isEqualTo(100);
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.halfOpenCalls = 0))
			.withMessage("halfOpenCalls must be between 1 and 100, was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.halfOpenCalls = 101))
			.withMessage("halfOpenCalls must be between 1 and 100, was 101");
	}

	@Test
	void slowFirstTokenDurationIsPositiveUpToTheLimit() {
		assertThat(with((v) -> v.slowFirstTokenDuration = ONE_NANO).slowFirstTokenDuration()).isEqualTo(ONE_NANO);
		assertThat(with((v) -> v.slowFirstTokenDuration = TimeLimits.MAX).slowFirstTokenDuration())
			.isEqualTo(TimeLimits.MAX);
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.slowFirstTokenDuration = Duration.ZERO))
			.withMessage("slowFirstTokenDuration must be a positive duration of at most 366 days, was PT0S");
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.slowFirstTokenDuration = PAST_MAX))
			.withMessage("slowFirstTokenDuration must be a positive duration of at most 366 days, was " + PAST_MAX);
	}

	@Test
	void halfOpenTimeoutIsPositiveUpToTheLimit() {
		assertThat(with((v) -> v.halfOpenTimeout = ONE_NANO).halfOpenTimeout()).isEqualTo(ONE_NANO);
		assertThat(with((v) -> v.halfOpenTimeout = TimeLimits.MAX).halfOpenTimeout()).isEqualTo(TimeLimits.MAX);
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.halfOpenTimeout = Duration.ZERO))
			.withMessage("halfOpenTimeout must be a positive duration of at most 366 days, was PT0S");
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.halfOpenTimeout = PAST_MAX))
			.withMessage("halfOpenTimeout must be a positive duration of at most 366 days, was " + PAST_MAX);
	}

	@Test
	void theWithersCheckTooAndTheShortConstructorTakesTheDefaults() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> BreakerSettings.defaults().withHalfOpenTimeout(Duration.ZERO))
			.withMessageStartingWith("halfOpenTimeout must be a positive duration");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> BreakerSettings.defaults().withSlowFirstTokenDuration(null))
			.withMessageStartingWith("slowFirstTokenDuration must be a positive duration");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new BreakerSettings(20, 10, 50, Duration.ofSeconds(10), 50, Duration.ofMinutes(1),
					Duration.ofSeconds(30), 1))
			.withMessage("openDurationMax must be at least openDuration (PT1M), was PT30S");
	}

	private static BreakerSettings with(Consumer<Values> change) {
		Values values = new Values();
		change.accept(values);
		return new BreakerSettings(values.slidingWindowSize, values.minimumCalls, values.failureRateThreshold,
				values.slowCallDuration, values.slowCallRateThreshold, values.openDuration, values.openDurationMax,
				values.halfOpenCalls, values.slowFirstTokenDuration, values.halfOpenTimeout);
	}

	/** The defaults, one of which a test changes. */
	private static final class Values {

		int slidingWindowSize = 20;

		int minimumCalls = 10;

		float failureRateThreshold = 50;

		Duration slowCallDuration = Duration.ofSeconds(10);

		float slowCallRateThreshold = 50;

		Duration openDuration = Duration.ofSeconds(30);

		Duration openDurationMax = Duration.ofMinutes(15);

		int halfOpenCalls = 1;

		Duration slowFirstTokenDuration = BreakerSettings.DEFAULT_SLOW_FIRST_TOKEN;

		Duration halfOpenTimeout = BreakerSettings.DEFAULT_HALF_OPEN_TIMEOUT;

	}

}
