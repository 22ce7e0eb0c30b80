package io.github.llmresilience.execute;

import java.util.ArrayList;
import java.util.List;

import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.target.Target;
import org.jspecify.annotations.Nullable;
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

	@Test
	void aCallWithoutATraceTellsTheSharedObserversAndOneWithATraceTellsItAfterThem() {
		List<String> told = new ArrayList<>();
		CallObservers shared = CallObservers.shared(new CallObserver() {

			@Override
			public void onPoolWait(String chain, String pool, long nanos) {
				told.add("shared");
			}

		});
		CallTrace trace = new CallTrace() {

			@Override
			public void onPoolWait(String chain, String pool, long nanos) {
				told.add("trace");
			}

			@Override
			public AttemptScope attemptStarted(Attempt attempt) {
				told.add("attempt started");
				return AttemptScope.NONE;
			}

			@Override
			public void ended(@Nullable Throwable error) {
				told.add("ended");
			}

		};

		assertThat(shared.traced(null)).isSameAs(shared);
		assertThat(shared.traced()).isFalse();
		CallObservers call = shared.traced(trace);
		assertThat(call.traced()).isTrue();
		call.onPoolWait("chat", "default", 1);
		call.ended(null);
		assertThat(told).containsExactly("shared", "trace", "ended");
		assertThat(CallObservers.shared(CallObserver.NONE).traced()).isFalse();
	}

}
