package io.github.llmresilience.classify.internal;

import java.time.Duration;

import io.github.llmresilience.classify.ClassificationRule;
import io.github.llmresilience.classify.ClassificationRules;
import io.github.llmresilience.classify.ClassifierSettings;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.RecentUnclassified;
import io.github.llmresilience.classify.RuleClassifier;
import io.github.llmresilience.classify.vendor.BuiltInClassifiers;
import io.github.llmresilience.test.ManualTime;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RecentUnclassifiedTests {

	private final ManualTime time = new ManualTime();

	@Test
	void countsEachTupleWithWhenItWasFirstAndLastSeen() {
		RecentUnclassified recent = new RecentUnclassified(this.time);
		recent.unclassified("openai", 418, "teapot");
		this.time.advance(Duration.ofMinutes(1));
		recent.unclassified("openai", 418, "teapot");
		recent.unclassified("anthropic", 0, null);

		assertThat(recent.list()).hasSize(2);
		RecentUnclassified.Entry teapot = recent.list()
			.stream()
			.filter((entry) -> "teapot".equals(entry.type()))
			.findFirst()
			.orElseThrow();
		assertThat(teapot.count()).isEqualTo(2);
		assertThat(teapot.lastSeen()).isEqualTo(teapot.firstSeen().plus(Duration.ofMinutes(1)));
	}

	@Test
	void eachTupleShowsWhyItsLastAnswerGotItsVerdict() {
		RecentUnclassified recent = new RecentUnclassified(this.time);
		BuiltInClassifiers.forProvider("openai", ClassifierSettings.defaults().withListener(recent))
			.classify(ProviderResponse.of(418, null,
					"{\"error\":{\"message\":\"short and stout\",\"type\":\"teapot\"}}"));
		assertThat(recent.list()).singleElement().satisfies((entry) -> {
			assertThat(entry.decidedBy()).isEqualTo("default");
			assertThat(entry.reason()).isEqualTo("status 418 default");
		});
		ClassificationRules rules = new ClassificationRules(
				java.util.List.of(ClassificationRule.parse(null, "418", null, null, "AVAILABILITY", null)));
		new RuleClassifier(rules, "openai", BuiltInClassifiers.forProvider("openai"), this.time, recent).classify(
				ProviderResponse.of(418, null, "{\"error\":{\"message\":\"short and stout\",\"type\":\"teapot\"}}"));
		assertThat(recent.list()).singleElement().satisfies((entry) -> {
			assertThat(entry.decidedBy()).isEqualTo("rules[0]");
			assertThat(entry.reason()).isEqualTo("user rule rules[0]: status=418 -> AVAILABILITY");
		});
	}

	@Test
	void whenFullTheTupleSeenLeastRecentlyMakesRoom() {
		RecentUnclassified recent = new RecentUnclassified(this.time, 2);
		recent.unclassified("openai", 418, "a");
		this.time.advance(Duration.ofSeconds(1));
		recent.unclassified("openai", 418, "b");
		this.time.advance(Duration.ofSeconds(1));
		recent.unclassified("openai", 418, "a");
		this.time.advance(Duration.ofSeconds(1));
		recent.unclassified("openai", 418, "c");

		assertThat(recent.list()).extracting(RecentUnclassified.Entry::type).containsExactly("c", "a");
	}

}
