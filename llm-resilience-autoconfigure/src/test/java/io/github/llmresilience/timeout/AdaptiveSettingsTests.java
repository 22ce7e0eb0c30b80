package io.github.llmresilience.timeout;

import java.time.Duration;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The ranges {@link AdaptiveSettings} checks when built: each bound builds, one past it
 * fails naming the component and the range.
 */
class AdaptiveSettingsTests {

	private static final Duration ONE_NANO = Duration.ofNanos(1);

	private static final Duration PAST_MAX = TimeLimits.MAX.plus(ONE_NANO);

	@Test
	void theDefaultsBuild() {
		assertThat(AdaptiveSettings.defaults().enabled()).isTrue();
		assertThat(AdaptiveSettings.disabled().enabled()).isFalse();
	}

	@Test
	void theRangesHoldWhenDisabledToo() {
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> {
			v.enabled = false;
			v.minSamples = 0;
		})).withMessage("minSamples must be between 1 and 1000000, was 0");
	}

	@Test
	void minSamplesIsFromOneToOneMillion() {
		assertThat(with((v) -> v.minSamples = 1).minSamples()).isEqualTo(1);
		assertThat(with((v) -> v.minSamples = 1_000_000).minSamples()).isEqualTo(1_000_000);
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.minSamples = 0))
			.withMessage("minSamples must be between 1 and 1000000, was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.minSamples = 1_000_001))
			.withMessage("minSamples must be between 1 and 1000000, was 1000001");
	}

	@Test
	void multiplierIsFromOneToOneHundred() {
		assertThat(with((v) -> v.multiplier = 1).multiplier()).isOne();
		assertThat(with((v) -> v.multiplier = 100).multiplier()).isEqualTo(100);
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.multiplier = Math.nextDown(1.0)))
			.withMessage("multiplier must be between 1 and 100, was " + Math.nextDown(1.0));
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.multiplier = Math.nextUp(100.0)))
			.withMessage("multiplier must be between 1 and 100, was " + Math.nextUp(100.0));
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.multiplier = Double.NaN))
			.withMessage("multiplier must be between 1 and 100, was NaN");
	}

	@Test
	void floorIsPositiveUpToTheLimit() {
		assertThat(with((v) -> v.floor = ONE_NANO).floor()).isEqualTo(ONE_NANO);
		assertThat(with((v) -> v.floor = TimeLimits.MAX).floor()).isEqualTo(TimeLimits.MAX);
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.floor = Duration.ZERO))
			.withMessage("floor must be a positive duration of at most 366 days, was PT0S");
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.floor = PAST_MAX))
			.withMessage("floor must be a positive duration of at most 366 days, was " + PAST_MAX);
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.floor = null))
			.withMessage("floor must be a positive duration of at most 366 days, was null");
	}

	@Test
	void floorRatioIsFromZeroToOne() {
		assertThat(with((v) -> v.floorRatio = 0).floorRatio()).isZero();
		assertThat(with((v) -> v.floorRatio = 1).floorRatio()).isOne();
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.floorRatio = Math.nextDown(0.0)))
			.withMessage("floorRatio must be between 0 and 1, was " + Math.nextDown(0.0));
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.floorRatio = Math.nextUp(1.0)))
			.withMessage("floorRatio must be between 0 and 1, was " + Math.nextUp(1.0));
	}

	private static AdaptiveSettings with(Consumer<Values> change) {
		Values values = new Values();
		change.accept(values);
		return new AdaptiveSettings(values.enabled, values.minSamples, values.multiplier, values.floor,
				values.floorRatio);
	}

	/** The defaults, one of which a test changes. */
	private static final class Values {

		boolean enabled = true;

		int minSamples = 200;

		double multiplier = 3.0;

		Duration floor = Duration.ofSeconds(1);

		double floorRatio = AdaptiveSettings.DEFAULT_FLOOR_RATIO;

	}

}
