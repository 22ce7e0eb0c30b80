package io.github.llmresilience.hedge;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import io.github.llmresilience.settings.InvalidSettingException;
import io.github.llmresilience.timeout.AdaptiveSettings;
import io.github.llmresilience.timeout.MeasuredTimeout;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The hedge's settings, its delay's arithmetic and its budget.
 */
class HedgingSettingsTests {

	@Test
	void theDefaultsAreOffWithAFivePercentBudgetOverTenSeconds() {
		HedgingSettings defaults = HedgingSettings.defaults();
		assertThat(defaults.enabled()).isFalse();
		assertThat(defaults.calls()).isFalse();
		assertThat(defaults.delay()).isNull();
		assertThat(defaults.budget()).isEqualTo(0.05);
		assertThat(defaults.window()).isEqualTo(Duration.ofSeconds(10));
		assertThat(defaults.minimum()).isEqualTo(1);
	}

	@Test
	void eachComponentOutOfItsRangeIsNamed() {
		assertThatExceptionOfType(InvalidSettingException.class)
			.isThrownBy(() -> HedgingSettings.defaults().withBudget(0, Duration.ofSeconds(10), 1))
			.satisfies((ex) -> assertThat(ex.setting()).isEqualTo("budget"))
			.withMessage("budget must be above 0 and at most 1, was 0.0");
		assertThatExceptionOfType(InvalidSettingException.class)
			.isThrownBy(() -> HedgingSettings.defaults().withBudget(1.01, Duration.ofSeconds(10), 1))
			.satisfies((ex) -> assertThat(ex.setting()).isEqualTo("budget"));
		assertThatExceptionOfType(InvalidSettingException.class)
			.isThrownBy(() -> HedgingSettings.defaults().withBudget(0.05, Duration.ZERO, 1))
			.satisfies((ex) -> assertThat(ex.setting()).isEqualTo("window"));
		assertThatExceptionOfType(InvalidSettingException.class)
			.isThrownBy(() -> HedgingSettings.defaults().withBudget(0.05, Duration.ofSeconds(10), -1))
			.satisfies((ex) -> assertThat(ex.setting()).isEqualTo("minimum"));
		assertThatExceptionOfType(InvalidSettingException.class)
			.isThrownBy(() -> HedgingSettings.defaults().withDelay(Duration.ofMillis(-1)))
			.satisfies((ex) -> assertThat(ex.setting()).isEqualTo("delay"));
		assertThat(HedgingSettings.defaults().withBudget(1, Duration.ofSeconds(1), 0).budget()).isEqualTo(1);
	}

	@Test
	void theDelayIsTheConfiguredOneWhenSet() {
		MeasuredTimeout firstToken = measured(100, Duration.ofMillis(300));
		assertThat(HedgingSettings.defaults().withDelay(Duration.ofMillis(750)).delayNanos(firstToken))
			.isEqualTo(Duration.ofMillis(750).toNanos());
	}

	@Test
	void beforeTwentyFirstTokensTheDelayIsHalfTheFirstTokenTimeout() {
		assertThat(HedgingSettings.defaults().delayNanos(measured(19, Duration.ofMillis(300))))
			.isEqualTo(Duration.ofMillis(2500).toNanos());
	}

	@Test
	void fromTwentyFirstTokensTheDelayIsTheirNinetyFifthPercentile() {
		MeasuredTimeout firstToken = new MeasuredTimeout(Duration.ofSeconds(5), AdaptiveSettings.disabled());
		// 19 quick first tokens and one slow: the 95th of 20 is the 19th, the quick ones'
		// longest.
		for (int i = 1; i <= 19; i++) {
			firstToken.record(Duration.ofMillis(100 + i).toNanos());
		}
		firstToken.record(Duration.ofSeconds(4).toNanos());
		assertThat(HedgingSettings.defaults().delayNanos(firstToken)).isEqualTo(Duration.ofMillis(119).toNanos());
		// Eighty more at 400 ms: the 95th of 100 is among them.
		for (int i = 0; i < 80; i++) {
			firstToken.record(Duration.ofMillis(400).toNanos());
		}
		assertThat(HedgingSettings.defaults().delayNanos(firstToken)).isEqualTo(Duration.ofMillis(400).toNanos());
	}

	@Test
	void aBudgetAllowsItsShareOfTheWindowsStreamsAndAtLeastItsMinimum() {
		AtomicLong now = new AtomicLong();
		HedgeBudget budget = new Hedges(
				HedgingSettings.defaults().withEnabled(true).withBudget(0.05, Duration.ofSeconds(10), 1), now::get)
			.budget("chat");
		budget.onCall(now.get());
		assertThat(budget.tryHedge()).isTrue();
		assertThat(budget.tryHedge()).isFalse();
		for (int i = 0; i < 39; i++) {
			budget.onCall(now.get());
		}
		// 40 streams: 5 % is two hedges, one taken.
		assertThat(budget.tryHedge()).isTrue();
		assertThat(budget.tryHedge()).isFalse();
		assertThat(budget.window()).containsExactly(40, 2);
		// The window passes: the minimum again.
		now.addAndGet(Duration.ofSeconds(11).toNanos());
		assertThat(budget.tryHedge()).isTrue();
		assertThat(budget.tryHedge()).isFalse();
	}

	private static MeasuredTimeout measured(int samples, Duration each) {
		MeasuredTimeout timeout = new MeasuredTimeout(Duration.ofSeconds(5), AdaptiveSettings.disabled());
		for (int i = 0; i < samples; i++) {
			timeout.record(each.toNanos());
		}
		return timeout;
	}

}
