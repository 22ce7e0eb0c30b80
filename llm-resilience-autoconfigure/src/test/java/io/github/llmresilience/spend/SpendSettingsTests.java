package io.github.llmresilience.spend;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The ranges {@link SpendSettings} and {@link Price} check when built: each bound builds,
 * one past it fails naming the component and the range.
 */
class SpendSettingsTests {

	@Test
	void theDefaultsAreOffWithFiveMinuteWindowsAndAlertBelowOpen() {
		SpendSettings defaults = SpendSettings.defaults();
		assertThat(defaults.enabled()).isFalse();
		assertThat(defaults.window()).isEqualTo(Duration.ofMinutes(5));
		assertThat(defaults.history()).isEqualTo(12);
		assertThat(defaults.minWindows()).isEqualTo(3);
		assertThat(defaults.minCalls()).isEqualTo(10);
		assertThat(defaults.openMultiple()).isEqualTo(3.0);
		assertThat(defaults.alertMultiple()).isEqualTo(2.0);
		assertThat(defaults.adoptAfter()).isEqualTo(6);
		assertThat(defaults.enable().enabled()).isTrue();
	}

	@Test
	void windowIsFromOneSecondToOneDay() {
		assertThat(settings(Duration.ofSeconds(1), 12, 3, 10, 3, 2).window()).isEqualTo(Duration.ofSeconds(1));
		assertThat(settings(Duration.ofDays(1), 12, 3, 10, 3, 2).window()).isEqualTo(Duration.ofDays(1));
		assertThatIllegalArgumentException().isThrownBy(() -> settings(Duration.ofMillis(999), 12, 3, 10, 3, 2))
			.withMessage("window must be between 1 s and 1 day, was PT0.999S");
		assertThatIllegalArgumentException().isThrownBy(() -> settings(null, 12, 3, 10, 3, 2))
			.withMessage("window must be between 1 s and 1 day, was null");
	}

	@Test
	void historyIsFromThreeToAThousandAndMinWindowsAtMostTheHistory() {
		assertThat(settings(Duration.ofMinutes(1), 3, 3, 10, 3, 2).history()).isEqualTo(3);
		assertThatIllegalArgumentException().isThrownBy(() -> settings(Duration.ofMinutes(1), 2, 1, 10, 3, 2))
			.withMessage("history must be between 3 and 1000, was 2");
		assertThatIllegalArgumentException().isThrownBy(() -> settings(Duration.ofMinutes(1), 1001, 3, 10, 3, 2))
			.withMessage("history must be between 3 and 1000, was 1001");
		assertThatIllegalArgumentException().isThrownBy(() -> settings(Duration.ofMinutes(1), 12, 13, 10, 3, 2))
			.withMessage("minWindows must be between 1 and history (12), was 13");
		assertThatIllegalArgumentException().isThrownBy(() -> settings(Duration.ofMinutes(1), 12, 0, 10, 3, 2))
			.withMessage("minWindows must be between 1 and history (12), was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> settings(Duration.ofMinutes(1), 12, 3, 0, 3, 2))
			.withMessage("minCalls must be between 1 and 1000000, was 0");
	}

	@Test
	void multiplesAreAboveOneWithTheAlertBelowTheOpening() {
		assertThat(settings(Duration.ofMinutes(1), 12, 3, 10, 1.5, 1.01).alertMultiple()).isEqualTo(1.01);
		assertThatIllegalArgumentException().isThrownBy(() -> settings(Duration.ofMinutes(1), 12, 3, 10, 3, 1))
			.withMessage("alertMultiple must be above 1 and at most 1000, was 1.0");
		assertThatIllegalArgumentException().isThrownBy(() -> settings(Duration.ofMinutes(1), 12, 3, 10, Double.NaN, 2))
			.withMessage("openMultiple must be above 1 and at most 1000, was NaN");
		assertThatIllegalArgumentException().isThrownBy(() -> settings(Duration.ofMinutes(1), 12, 3, 10, 2, 2))
			.withMessage("openMultiple must be above alertMultiple (2.0), was 2.0");
		assertThatIllegalArgumentException().isThrownBy(() -> settings(Duration.ofMinutes(1), 12, 3, 10, 1.5, 2))
			.withMessage("openMultiple must be above alertMultiple (2.0), was 1.5");
	}

	@Test
	void adoptAfterIsFromZeroToAThousandWindows() {
		assertThat(new SpendSettings(true, Duration.ofMinutes(1), 12, 3, 10, 3, 2, 0).adoptAfter()).isZero();
		assertThat(new SpendSettings(true, Duration.ofMinutes(1), 12, 3, 10, 3, 2, 1000).adoptAfter()).isEqualTo(1000);
		assertThat(settings(Duration.ofMinutes(1), 12, 3, 10, 3, 2).adoptAfter())
			.isEqualTo(SpendSettings.DEFAULT_ADOPT_AFTER);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new SpendSettings(true, Duration.ofMinutes(1), 12, 3, 10, 3, 2, -1))
			.withMessage("adoptAfter must be between 0 and 1000, was -1");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new SpendSettings(true, Duration.ofMinutes(1), 12, 3, 10, 3, 2, 1001))
			.withMessage("adoptAfter must be between 0 and 1000, was 1001");
	}

	@Test
	void aPriceIsZeroOrPositiveAndNotBothZero() {
		assertThat(new Price(0, 10).cost(1_000_000, 1_000_000)).isEqualTo(10);
		assertThat(new Price(2.5, 10).cost(2_000_000, 500_000)).isEqualTo(10);
		assertThatIllegalArgumentException().isThrownBy(() -> new Price(-1, 10))
			.withMessage("input must be zero or positive (per million tokens), was -1.0");
		assertThatIllegalArgumentException().isThrownBy(() -> new Price(1, Double.POSITIVE_INFINITY))
			.withMessage("output must be zero or positive (per million tokens), was Infinity");
		assertThatIllegalArgumentException().isThrownBy(() -> new Price(Double.NaN, 1))
			.withMessage("input must be zero or positive (per million tokens), was NaN");
		assertThatIllegalArgumentException().isThrownBy(() -> new Price(0, 0))
			.withMessage("output must be above 0 when input is 0, was 0.0");
	}

	private static SpendSettings settings(Duration window, int history, int minWindows, int minCalls,
			double openMultiple, double alertMultiple) {
		return new SpendSettings(true, window, history, minWindows, minCalls, openMultiple, alertMultiple);
	}

}
