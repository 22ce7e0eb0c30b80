package io.github.llmresilience.execute;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.llmresilience.execute.ChainStep.Skip;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.test.FakeProvider.Reply;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An observer is told each time a call passes a target over without a request (a
 * fail-fast: its breaker, quota scope or account refused), with the reason; an observer
 * that throws there changes nothing about the call.
 */
class SkippedTargetObserverTests {

	private final EngineHarness h = new EngineHarness();

	@AfterEach
	void close() {
		this.h.close();
	}

	@Test
	void aTargetPassedOverWithoutARequestIsToldWithTheReason() {
		this.h.provider.always("secondary", Reply.ok(FakeProviderBodies.OK_SECONDARY));
		List<String> skipped = new CopyOnWriteArrayList<>();
		this.h.build((builder) -> builder.observer(new CallObserver() {
			@Override
			public void onSkipped(String chain, Target target, Skip why) {
				skipped.add(chain + " " + target.name() + " " + why);
			}
		}), "primary", "secondary");
		this.h.resilience.operator().forceOpen("primary");

		assertThat(this.h.chat()).isEqualTo(FakeProviderBodies.OK_SECONDARY);
		assertThat(this.h.chat()).isEqualTo(FakeProviderBodies.OK_SECONDARY);

		assertThat(skipped).containsExactly("chat primary BREAKER_FORCED_OPEN", "chat primary BREAKER_FORCED_OPEN");
		assertThat(this.h.provider.requests("primary")).isZero();
	}

	@Test
	void anObserverThatThrowsWhenToldOfASkipChangesNothing() {
		this.h.provider.always("secondary", Reply.ok(FakeProviderBodies.OK_SECONDARY));
		this.h.build((builder) -> builder.observer(new CallObserver() {
			@Override
			public void onSkipped(String chain, Target target, Skip why) {
				throw new IllegalStateException("observer bug");
			}
		}), "primary", "secondary");
		this.h.resilience.operator().forceOpen("primary");

		assertThat(this.h.chat()).isEqualTo(FakeProviderBodies.OK_SECONDARY);
		assertThat(this.h.provider.requests("secondary")).isEqualTo(1);
	}

}
