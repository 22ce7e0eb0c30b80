package io.github.llmresilience.throttle;

import java.time.Duration;

import io.github.llmresilience.timeout.TimeLimits;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The ranges {@link ThrottleSettings} checks when built: each bound builds, one past it
 * fails naming the component and the range.
 */
class ThrottleSettingsTests {

	private static final Duration ONE_NANO = Duration.ofNanos(1);

	private static final Duration PAST_MAX = TimeLimits.MAX.plus(ONE_NANO);

	private static final Duration FIVE_SECONDS = Duration.ofSeconds(5);

	private static final Duration FIVE_MINUTES = Duration.ofMinutes(5);

	@Test
	void theDefaultsBuild() {
		assertThat(ThrottleSettings.defaults().minWait()).isEqualTo(ThrottleSettings.DEFAULT_MIN_WAIT);
		assertThat(new ThrottleSettings(FIVE_SECONDS, FIVE_MINUTES).minWait())
			.isEqualTo(ThrottleSettings.DEFAULT_MIN_WAIT);
	}

	/** Any positive default wait builds without a minimum wait of its own. */
	@Test
	void aShortDefaultWaitWithoutAMinimumGetsHalfOfItAsTheMinimum() {
		assertThat(new ThrottleSettings(Duration.ofMillis(100), FIVE_MINUTES).minWait())
			.isEqualTo(Duration.ofMillis(50));
		assertThat(new ThrottleSettings(Duration.ofMillis(20), FIVE_MINUTES).minWait())
			.isEqualTo(Duration.ofMillis(10));
		assertThat(new ThrottleSettings(ONE_NANO, FIVE_MINUTES).minWait()).isZero();
		assertThat(new ThrottleSettings(Duration.ofMillis(200), FIVE_MINUTES).minWait())
			.isEqualTo(ThrottleSettings.DEFAULT_MIN_WAIT);
	}

	@Test
	void defaultWaitIsPositiveUpToTheMaximumWait() {
		assertThat(new ThrottleSettings(ONE_NANO, FIVE_MINUTES, Duration.ZERO).defaultWait()).isEqualTo(ONE_NANO);
		assertThat(new ThrottleSettings(FIVE_MINUTES, FIVE_MINUTES).defaultWait()).isEqualTo(FIVE_MINUTES);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new ThrottleSettings(Duration.ZERO, FIVE_MINUTES, Duration.ZERO))
			.withMessage("defaultWait must be a positive duration of at most 366 days, was PT0S");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new ThrottleSettings(FIVE_MINUTES.plus(ONE_NANO), FIVE_MINUTES))
			.withMessage("defaultWait must not exceed maxWait (PT5M), was PT5M0.000000001S");
		assertThatIllegalArgumentException().isThrownBy(() -> new ThrottleSettings(null, FIVE_MINUTES))
			.withMessage("defaultWait must be a positive duration of at most 366 days, was null");
	}

	@Test
	void maxWaitIsFromTheDefaultWaitToTheLimit() {
		assertThat(new ThrottleSettings(FIVE_SECONDS, FIVE_SECONDS).maxWait()).isEqualTo(FIVE_SECONDS);
		assertThat(new ThrottleSettings(FIVE_SECONDS, TimeLimits.MAX).maxWait()).isEqualTo(TimeLimits.MAX);
		assertThatIllegalArgumentException().isThrownBy(() -> new ThrottleSettings(FIVE_SECONDS, PAST_MAX))
			.withMessage("maxWait must be a positive duration of at most 366 days, was " + PAST_MAX);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new ThrottleSettings(FIVE_SECONDS, FIVE_SECONDS.minus(ONE_NANO)))
			.withMessage("defaultWait must not exceed maxWait (PT4.999999999S), was PT5S");
	}

	@Test
	void minWaitIsFromZeroToBelowTheDefaultWait() {
		assertThat(new ThrottleSettings(FIVE_SECONDS, FIVE_MINUTES, Duration.ZERO).minWait()).isZero();
		assertThat(new ThrottleSettings(FIVE_SECONDS, FIVE_MINUTES, FIVE_SECONDS.minus(ONE_NANO)).minWait())
			.isEqualTo(FIVE_SECONDS.minus(ONE_NANO));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new ThrottleSettings(FIVE_SECONDS, FIVE_MINUTES, ONE_NANO.negated()))
			.withMessage("minWait must be zero or more and below defaultWait (PT5S), was PT-0.000000001S");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new ThrottleSettings(FIVE_SECONDS, FIVE_MINUTES, FIVE_SECONDS))
			.withMessage("minWait must be zero or more and below defaultWait (PT5S), was PT5S");
		assertThatIllegalArgumentException().isThrownBy(() -> new ThrottleSettings(FIVE_SECONDS, FIVE_MINUTES, null))
			.withMessage("minWait must be zero or more and below defaultWait (PT5S), was null");
	}

}
