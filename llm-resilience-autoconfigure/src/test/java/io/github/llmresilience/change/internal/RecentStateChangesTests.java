package io.github.llmresilience.change.internal;

import java.time.Instant;

import io.github.llmresilience.change.RecentStateChanges;
import io.github.llmresilience.change.StateChange;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class RecentStateChangesTests {

	private static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");

	@Test
	void keepsTheNewestFirst() {
		RecentStateChanges recent = new RecentStateChanges();
		recent.onStateChange(change(1));
		recent.onStateChange(change(2));
		assertThat(recent.list()).extracting(StateChange::subject).containsExactly("s2", "s1");
	}

	@Test
	void keepsOnlyTheLastTwoHundredByDefault() {
		RecentStateChanges recent = new RecentStateChanges();
		for (int i = 1; i <= 450; i++) {
			recent.onStateChange(change(i));
		}
		assertThat(recent.list()).hasSize(200);
		assertThat(recent.list().get(0).subject()).isEqualTo("s450");
		assertThat(recent.list().get(199).subject()).isEqualTo("s251");
	}

	@Test
	void aCapacityBelowOneIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> new RecentStateChanges(0))
			.withMessageContaining("at least 1");
	}

	private static StateChange change(int n) {
		return new StateChange(NOW.plusSeconds(n), StateChange.Kind.SCOPE_GATED, "s" + n, "rate limited", null);
	}

}
