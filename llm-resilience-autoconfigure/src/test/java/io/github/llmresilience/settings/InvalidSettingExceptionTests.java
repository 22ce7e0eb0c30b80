package io.github.llmresilience.settings;

import java.time.Duration;

import io.github.llmresilience.retry.RetrySettings;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * A settings record names the component it rejects in parts, so that a caller names it as
 * it knows it, while the message reads as a sentence.
 */
class InvalidSettingExceptionTests {

	@Test
	void aComponentOutOfItsOwnRangeIsNamedWithTheRangeAndTheValue() {
		InvalidSettingException ex = catchThrowableOfType(InvalidSettingException.class,
				() -> new RetrySettings(0, Duration.ZERO, Duration.ZERO, 0.1, Duration.ofSeconds(10), 3));
		assertThat(ex).hasMessage("maxAttempts must be between 1 and 10, was 0");
		assertThat(ex.setting()).isEqualTo("maxAttempts");
		assertThat(ex.value()).isEqualTo("0");
		assertThat(ex.requirement((name) -> "retry." + name)).isEqualTo("must be between 1 and 10");
	}

	@Test
	void aComponentComparedWithAnotherNamesTheOtherAsTheCallerDoes() {
		InvalidSettingException ex = catchThrowableOfType(InvalidSettingException.class, () -> new RetrySettings(3,
				Duration.ofSeconds(1), Duration.ofMillis(500), 0.1, Duration.ofSeconds(10), 3));
		assertThat(ex).hasMessage("backoffMax must be at least backoffBase (PT1S), was PT0.5S");
		assertThat(ex.setting()).isEqualTo("backoffMax");
		assertThat(ex.value()).isEqualTo("PT0.5S");
		assertThat(ex.requirement((name) -> "retry." + name)).isEqualTo("must be at least retry.backoffBase (PT1S)");
	}

}
