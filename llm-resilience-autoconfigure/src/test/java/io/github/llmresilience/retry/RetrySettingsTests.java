package io.github.llmresilience.retry;

import java.time.Duration;
import java.util.function.Consumer;

import io.github.llmresilience.timeout.TimeLimits;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The ranges {@link RetrySettings} checks when built: each bound builds, one past it
 * fails naming the component and the range.
 */
class RetrySettingsTests {

	private static final Duration ONE_NANO = Duration.ofNanos(1);

	private static final Duration PAST_MAX = TimeLimits.MAX.plus(ONE_NANO);

	@Test
	void theDefaultsBuild() {
		assertThat(RetrySettings.defaults().maxAttempts()).isEqualTo(3);
	}

	@Test
	void maxAttemptsIsFromOneToTen() {
		assertThat(with((v) -> v.maxAttempts = 1).maxAttempts()).isEqualTo(1);
		assertThat(with((v) -> v.maxAttempts = 10).maxAttempts()).isEqualTo(10);
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.maxAttempts = 0))
			.withMessage("maxAttempts must be between 1 and 10, was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.maxAttempts = 11))
			.withMessage("maxAttempts must be between 1 and 10, was 11");
	}

	@Test
	void backoffBaseIsFromZeroToTheLimit() {
		assertThat(with((v) -> v.backoffBase = Duration.ZERO).backoffBase()).isZero();
		assertThat(with((v) -> {
			v.backoffBase = TimeLimits.MAX;
			v.backoffMax = TimeLimits.MAX;
		}).backoffBase()).isEqualTo(TimeLimits.MAX);
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.backoffBase = ONE_NANO.negated()))
			.withMessage("backoffBase must be zero or a positive duration of at most 366 days, was PT-0.000000001S");
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> {
			v.backoffBase = PAST_MAX;
			v.backoffMax = PAST_MAX;
		})).withMessage("backoffBase must be zero or a positive duration of at most 366 days, was " + PAST_MAX);
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.backoffBase = null))
			.withMessage("backoffBase must be zero or a positive duration of at most 366 days, was null");
	}

	@Test
	void backoffMaxIsFromTheBaseToTheLimit() {
		assertThat(with((v) -> v.backoffMax = Duration.ofMillis(500)).backoffMax()).isEqualTo(Duration.ofMillis(500));
		assertThat(with((v) -> v.backoffMax = TimeLimits.MAX).backoffMax()).isEqualTo(TimeLimits.MAX);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> with((v) -> v.backoffMax = Duration.ofMillis(500).minus(ONE_NANO)))
			.withMessage("backoffMax must be at least backoffBase (PT0.5S), was PT0.499999999S");
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.backoffMax = PAST_MAX))
			.withMessage("backoffMax must be zero or a positive duration of at most 366 days, was " + PAST_MAX);
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.backoffMax = null))
			.withMessage("backoffMax must be zero or a positive duration of at most 366 days, was null");
	}

	@Test
	void zeroBackoffBuildsAsTheZeroBackoffPropertiesDo() {
		RetrySettings settings = with((v) -> {
			v.backoffBase = Duration.ZERO;
			v.backoffMax = Duration.ZERO;
		});
		assertThat(settings.backoffMax()).isZero();
	}

	@Test
	void budgetRatioIsFromZeroToOne() {
		assertThat(with((v) -> v.budgetRatio = 0).budgetRatio()).isZero();
		assertThat(with((v) -> v.budgetRatio = 1).budgetRatio()).isOne();
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.budgetRatio = Math.nextDown(0.0)))
			.withMessage("budgetRatio must be between 0 and 1, was " + Math.nextDown(0.0));
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.budgetRatio = Math.nextUp(1.0)))
			.withMessage("budgetRatio must be between 0 and 1, was " + Math.nextUp(1.0));
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.budgetRatio = Double.NaN))
			.withMessage("budgetRatio must be between 0 and 1, was NaN");
	}

	@Test
	void budgetWindowIsPositiveUpToTheLimit() {
		assertThat(with((v) -> v.budgetWindow = ONE_NANO).budgetWindow()).isEqualTo(ONE_NANO);
		assertThat(with((v) -> v.budgetWindow = TimeLimits.MAX).budgetWindow()).isEqualTo(TimeLimits.MAX);
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.budgetWindow = Duration.ZERO))
			.withMessage("budgetWindow must be a positive duration of at most 366 days, was PT0S");
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.budgetWindow = PAST_MAX))
			.withMessage("budgetWindow must be a positive duration of at most 366 days, was " + PAST_MAX);
	}

	@Test
	void budgetMinimumIsFromZeroToOneMillion() {
		assertThat(with((v) -> v.budgetMinimum = 0).budgetMinimum()).isZero();
		assertThat(with((v) -> v.budgetMinimum = 1_000_000).budgetMinimum()).isEqualTo(1_000_000);
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.budgetMinimum = -1))
			.withMessage("budgetMinimum must be between 0 and 1000000, was -1");
		assertThatIllegalArgumentException().isThrownBy(() -> with((v) -> v.budgetMinimum = 1_000_001))
			.withMessage("budgetMinimum must be between 0 and 1000000, was 1000001");
	}

	private static RetrySettings with(Consumer<Values> change) {
		Values values = new Values();
		change.accept(values);
		return new RetrySettings(values.maxAttempts, values.backoffBase, values.backoffMax, values.budgetRatio,
				values.budgetWindow, values.budgetMinimum);
	}

	/** The defaults, one of which a test changes. */
	private static final class Values {

		int maxAttempts = 3;

		Duration backoffBase = Duration.ofMillis(500);

		Duration backoffMax = Duration.ofSeconds(30);

		double budgetRatio = 0.1;

		Duration budgetWindow = Duration.ofSeconds(10);

		int budgetMinimum = 3;

	}

}
