package io.github.llmresilience.throttle;

import java.time.Duration;
import java.util.function.Consumer;

import io.github.llmresilience.timeout.TimeLimits;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The ranges {@link AccountSettings} checks when built: each bound builds, one past it
 * fails naming the component and the range.
 */
class AccountSettingsTests {

	private static final Duration ONE_NANO = Duration.ofNanos(1);

	private static final Duration PAST_MAX = TimeLimits.MAX.plus(ONE_NANO);

	@Test
	void theDefaultsBuild() {
		assertThat(AccountSettings.defaults().maxPark()).isEqualTo(Duration.ofDays(31));
	}

	@Test
	void defaultParkIsPositiveUpToTheMaximumPark() {
		assertThat(with((v) -> v.defaultPark = ONE_NANO).defaultPark()).isEqualTo(ONE_NANO);
		assertThat(with((v) -> v.defaultPark = Duration.ofDays(31)).defaultPark()).isEqualTo(Duration.ofDays(31));
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.defaultPark = Duration.ZERO))
			.withMessage("defaultPark must be a positive duration of at most 366 days, was PT0S");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> with((v) -> v.defaultPark = Duration.ofDays(31).plus(ONE_NANO)))
			.withMessage("defaultPark must not exceed maxPark (PT744H), was PT744H0.000000001S");
	}

	@Test
	void maxParkIsFromTheDefaultParkToTheLimit() {
		assertThat(with((v) -> v.maxPark = Duration.ofHours(1)).maxPark()).isEqualTo(Duration.ofHours(1));
		assertThat(with((v) -> v.maxPark = TimeLimits.MAX).maxPark()).isEqualTo(TimeLimits.MAX);
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.maxPark = PAST_MAX))
			.withMessage("maxPark must be a positive duration of at most 366 days, was " + PAST_MAX);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> with((v) -> v.maxPark = Duration.ofHours(1).minus(ONE_NANO)))
			.withMessage("defaultPark must not exceed maxPark (PT59M59.999999999S), was PT1H");
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.maxPark = null))
			.withMessage("maxPark must be a positive duration of at most 366 days, was null");
	}

	@Test
	void lockAfterIsFromOneToOneHundred() {
		assertThat(with((v) -> v.lockAfter = 1).lockAfter()).isEqualTo(1);
		assertThat(with((v) -> v.lockAfter = 100).lockAfter()).isEqualTo(100);
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.lockAfter = 0))
			.withMessage("lockAfter must be between 1 and 100, was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.lockAfter = 101))
			.withMessage("lockAfter must be between 1 and 100, was 101");
	}

	@Test
	void lockDurationIsPositiveUpToTheLimit() {
		assertThat(with((v) -> v.lockDuration = ONE_NANO).lockDuration()).isEqualTo(ONE_NANO);
		assertThat(with((v) -> {
			v.lockDuration = TimeLimits.MAX;
			v.lockDurationMax = TimeLimits.MAX;
		}).lockDuration()).isEqualTo(TimeLimits.MAX);
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.lockDuration = Duration.ZERO))
			.withMessage("lockDuration must be a positive duration of at most 366 days, was PT0S");
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.lockDuration = PAST_MAX))
			.withMessage("lockDuration must be a positive duration of at most 366 days, was " + PAST_MAX);
	}

	@Test
	void lockDurationMaxIsFromTheLockDurationToTheLimit() {
		assertThat(with((v) -> v.lockDurationMax = Duration.ofMinutes(1)).lockDurationMax())
			.isEqualTo(Duration.ofMinutes(1));
		assertThat(with((v) -> v.lockDurationMax = TimeLimits.MAX).lockDurationMax()).isEqualTo(TimeLimits.MAX);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> with((v) -> v.lockDurationMax = Duration.ofMinutes(1).minus(ONE_NANO)))
			.withMessage("lockDurationMax must be at least lockDuration (PT1M), was PT59.999999999S");
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.lockDurationMax = PAST_MAX))
			.withMessage("lockDurationMax must be a positive duration of at most 366 days, was " + PAST_MAX);
	}

	private static AccountSettings with(Consumer<Values> change) {
		Values values = new Values();
		change.accept(values);
		return new AccountSettings(values.defaultPark, values.maxPark, values.lockAfter, values.lockDuration,
				values.lockDurationMax);
	}

	/** The defaults, one of which a test changes. */
	private static final class Values {

		Duration defaultPark = Duration.ofHours(1);

		Duration maxPark = Duration.ofDays(31);

		int lockAfter = 2;

		Duration lockDuration = Duration.ofMinutes(1);

		Duration lockDurationMax = Duration.ofHours(1);

	}

}
