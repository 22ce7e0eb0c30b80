package io.github.llmresilience.execute;

import java.util.ArrayList;
import java.util.List;

import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.target.Target;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * The one fan-out of observers: in order, each guarded.
 */
class CallObserversTests {

	private static final Target TARGET = Target.of("primary", "openai");

	@Test
	void anObserverThatThrowsIsLoggedAndTheNextIsStillTold() {
		List<String> told = new ArrayList<>();
		CallObserver failing = new CallObserver() {

			@Override
			public void onAttempt(String chain, Target target, Verdict verdict, long nanos) {
				told.add("failing");
				throw new IllegalStateException("an observer's own bug");
			}

		};
		CallObserver counting = new CallObserver() {

			@Override
			public void onAttempt(String chain, Target target, Verdict verdict, long nanos) {
				told.add("counting");
			}

		};

		CallObserver both = CallObserver.of(List.of(failing, counting));

		assertThatNoException().isThrownBy(() -> both.onAttempt("chat", TARGET, Verdict.success(), 1));
		assertThat(told).containsExactly("failing", "counting");
	}

	@Test
	void noObserversAreNoneAndAGuardedOneIsNotGuardedTwice() {
		assertThat(CallObserver.of(List.of())).isSameAs(CallObserver.NONE);
		assertThat(CallObserver.of(List.of(CallObserver.NONE))).isSameAs(CallObserver.NONE);
		CallObserver guarded = CallObserver.of(List.of(new CallObserver() {
		}));
		assertThat(CallObservers.of(List.of(guarded))).isSameAs(guarded);
	}

}
