package io.github.llmresilience.execute;

import java.time.Duration;
import java.util.function.Consumer;

import io.github.llmresilience.timeout.AdaptiveSettings;
import io.github.llmresilience.timeout.TimeLimits;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The ranges {@link TimeoutSettings} checks when built: each bound builds, one past it
 * fails naming the component and the range.
 */
class TimeoutSettingsTests {

	private static final Duration ONE_NANO = Duration.ofNanos(1);

	private static final Duration PAST_MAX = TimeLimits.MAX.plus(ONE_NANO);

	@Test
	void theDefaultsBuild() {
		assertThat(TimeoutSettings.defaults().call()).isEqualTo(TimeoutSettings.DEFAULT_CALL);
	}

	@Test
	void attemptIsPositiveUpToTheLimit() {
		assertThat(with((v) -> v.attempt = ONE_NANO).attempt()).isEqualTo(ONE_NANO);
		assertThat(with((v) -> v.attempt = TimeLimits.MAX).attempt()).isEqualTo(TimeLimits.MAX);
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.attempt = Duration.ZERO))
			.withMessage("attempt must be a positive duration of at most 366 days, was PT0S");
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.attempt = PAST_MAX))
			.withMessage("attempt must be a positive duration of at most 366 days, was " + PAST_MAX);
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.attempt = null))
			.withMessage("attempt must be a positive duration of at most 366 days, was null");
	}

	@Test
	void firstTokenIsPositiveUpToTheLimit() {
		assertThat(with((v) -> v.firstToken = ONE_NANO).firstToken()).isEqualTo(ONE_NANO);
		assertThat(with((v) -> v.firstToken = TimeLimits.MAX).firstToken()).isEqualTo(TimeLimits.MAX);
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.firstToken = Duration.ZERO))
			.withMessage("firstToken must be a positive duration of at most 366 days, was PT0S");
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.firstToken = PAST_MAX))
			.withMessage("firstToken must be a positive duration of at most 366 days, was " + PAST_MAX);
	}

	@Test
	void stallIsPositiveUpToTheLimit() {
		assertThat(with((v) -> v.stall = ONE_NANO).stall()).isEqualTo(ONE_NANO);
		assertThat(with((v) -> v.stall = TimeLimits.MAX).stall()).isEqualTo(TimeLimits.MAX);
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.stall = Duration.ZERO))
			.withMessage("stall must be a positive duration of at most 366 days, was PT0S");
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.stall = PAST_MAX))
			.withMessage("stall must be a positive duration of at most 366 days, was " + PAST_MAX);
	}

	@Test
	void callIsPositiveUpToTheLimit() {
		assertThat(with((v) -> v.call = ONE_NANO).call()).isEqualTo(ONE_NANO);
		assertThat(with((v) -> v.call = TimeLimits.MAX).call()).isEqualTo(TimeLimits.MAX);
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.call = Duration.ZERO))
			.withMessage("call must be a positive duration of at most 366 days, was PT0S");
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.call = PAST_MAX))
			.withMessage("call must be a positive duration of at most 366 days, was " + PAST_MAX);
	}

	@Test
	void adaptiveIsRequired() {
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.adaptive = null))
			.withMessage("adaptive must not be null");
	}

	@Test
	void theWithersCheckToo() {
		assertThatIllegalArgumentException().isThrownBy(() -> TimeoutSettings.defaults().withAttempt(Duration.ZERO))
			.withMessageStartingWith("attempt must be a positive duration");
		assertThatIllegalArgumentException().isThrownBy(() -> TimeoutSettings.defaults().withCall(PAST_MAX))
			.withMessageStartingWith("call must be a positive duration");
		assertThatIllegalArgumentException().isThrownBy(() -> TimeoutSettings.defaults().withAdaptive(null))
			.withMessage("adaptive must not be null");
	}

	private static TimeoutSettings with(Consumer<Values> change) {
		Values values = new Values();
		change.accept(values);
		return new TimeoutSettings(values.attempt, values.firstToken, values.stall, values.adaptive, values.call);
	}

	/** The defaults, one of which a test changes. */
	private static final class Values {

		Duration attempt = Duration.ofSeconds(30);

		Duration firstToken = Duration.ofSeconds(5);

		Duration stall = Duration.ofSeconds(10);

		AdaptiveSettings adaptive = AdaptiveSettings.defaults();

		Duration call = TimeoutSettings.DEFAULT_CALL;

	}

}
