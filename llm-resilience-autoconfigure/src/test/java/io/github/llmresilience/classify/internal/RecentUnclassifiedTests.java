package io.github.llmresilience.classify.internal;

import java.time.Duration;

import io.github.llmresilience.classify.RecentUnclassified;
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
