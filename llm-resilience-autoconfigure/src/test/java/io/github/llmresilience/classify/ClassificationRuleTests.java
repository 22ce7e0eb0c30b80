package io.github.llmresilience.classify;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A rule checks its own ranges, and its message names the component, what is allowed and
 * the value, so that startup and the endpoint can say what is wrong.
 */
class ClassificationRuleTests {

	@Test
	void aRuleFromTextReadsEveryFieldAsConfigurationWritesIt() {
		ClassificationRule rule = ClassificationRule.parse(" OpenAI-Compatible ", "4xx", "tokens", "Requested ~",
				"request", null);

		assertThat(rule.provider()).isEqualTo("openai-compatible");
		assertThat(rule.outcome()).isEqualTo(Outcome.REQUEST);
		assertThat(rule.matchesStatus(429)).isTrue();
		assertThat(rule.matchesStatus(400)).isTrue();
		assertThat(rule.matchesStatus(503)).isFalse();
		assertThat(ClassificationRule.parse(null, "429", null, null, "quota", "30s").waitHint())
			.isEqualTo(Duration.ofSeconds(30));
		assertThat(ClassificationRule.parse(null, "429", null, null, "QUOTA", "1d").waitHint())
			.isEqualTo(Duration.ofDays(1));
		assertThat(ClassificationRule.parse(null, "429", null, null, "QUOTA", "PT2M").waitHint())
			.isEqualTo(Duration.ofMinutes(2));
		assertThat(ClassificationRule.parse(null, "429", null, null, "content-filter", "1m30s").outcome())
			.isEqualTo(Outcome.CONTENT_FILTER);
	}

	@Test
	void anUnknownOutcomeIsRefusedNamingWhatIsAllowed() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ClassificationRule.parse(null, "429", null, null, "RETRY", null))
			.withMessage("outcome must be one of AVAILABILITY, THROTTLED, QUOTA, CREDENTIAL, REQUEST, CONTENT_FILTER, "
					+ "was 'RETRY'");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ClassificationRule.parse(null, "429", null, null, "SUCCESS", null))
			.withMessageStartingWith("outcome must be one of");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ClassificationRule.parse(null, "429", null, null, null, null))
			.withMessageStartingWith("outcome is required");
	}

	@Test
	void aRuleWithoutAConditionIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ClassificationRule.parse(" ", "", null, "", "QUOTA", "30s"))
			.withMessageStartingWith("rule needs at least one condition");
	}

	@Test
	void badStatusesAndWaitsAreRefusedNamingTheirComponent() {
		for (String status : new String[] { "42", "4x", "600", "xxx", "4XX9", "-429", "0xx" }) {
			assertThatIllegalArgumentException()
				.isThrownBy(() -> ClassificationRule.parse(null, status, null, null, "QUOTA", null))
				.withMessageStartingWith("status must be an HTTP status");
		}
		for (String wait : new String[] { "soon", "-5s", "0s", "400d", "30", "P" }) {
			assertThatIllegalArgumentException()
				.isThrownBy(() -> ClassificationRule.parse(null, "429", null, null, "QUOTA", wait))
				.withMessageStartingWith("wait must be");
		}
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ClassificationRule.parse(null, null, "x".repeat(300), null, "QUOTA", null))
			.withMessageStartingWith("type must be at most 256 characters");
	}

}
