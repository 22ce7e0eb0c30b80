package io.github.llmresilience.classify;

import java.time.Clock;
import java.time.Duration;

import io.github.llmresilience.timeout.TimeLimits;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The ranges {@link ClassifierSettings} checks when built: each bound builds, one past it
 * fails naming the component and the range.
 */
class ClassifierSettingsTests {

	private static final Duration ONE_NANO = Duration.ofNanos(1);

	private static final Duration PAST_MAX = TimeLimits.MAX.plus(ONE_NANO);

	@Test
	void theDefaultsBuild() {
		assertThat(ClassifierSettings.defaults().quotaThreshold())
			.isEqualTo(ClassifierSettings.DEFAULT_QUOTA_THRESHOLD);
	}

	@Test
	void quotaThresholdIsPositiveUpToTheLimit() {
		assertThat(ClassifierSettings.defaults().withQuotaThreshold(ONE_NANO).quotaThreshold()).isEqualTo(ONE_NANO);
		assertThat(ClassifierSettings.defaults().withQuotaThreshold(TimeLimits.MAX).quotaThreshold())
			.isEqualTo(TimeLimits.MAX);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ClassifierSettings.defaults().withQuotaThreshold(Duration.ZERO))
			.withMessage("quotaThreshold must be a positive duration of at most 366 days, was PT0S");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ClassifierSettings.defaults().withQuotaThreshold(PAST_MAX))
			.withMessage("quotaThreshold must be a positive duration of at most 366 days, was " + PAST_MAX);
		assertThatIllegalArgumentException().isThrownBy(() -> ClassifierSettings.defaults().withQuotaThreshold(null))
			.withMessage("quotaThreshold must be a positive duration of at most 366 days, was null");
	}

	@Test
	void clockIsRequired() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new ClassifierSettings(null, Duration.ofHours(1), UnclassifiedListener.NONE))
			.withMessage("clock must not be null");
	}

	@Test
	void listenerIsRequired() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new ClassifierSettings(Clock.systemUTC(), Duration.ofHours(1), null))
			.withMessage("listener must not be null");
	}

}
