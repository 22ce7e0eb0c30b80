package io.github.llmresilience.execute;

import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.target.Target;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An observer as the engine calls it: observers are applications' beans, told about a
 * call while it runs; one that throws must not change the call's course.
 */
final class GuardedCallObserver implements CallObserver {

	private static final Logger logger = LoggerFactory.getLogger(GuardedCallObserver.class);

	private final CallObserver delegate;

	private GuardedCallObserver(CallObserver delegate) {
		this.delegate = delegate;
	}

	static CallObserver of(CallObserver observer) {
		return (observer == CallObserver.NONE || observer instanceof GuardedCallObserver) ? observer
				: new GuardedCallObserver(observer);
	}

	@Override
	public void onAttempt(String chain, Target target, Verdict verdict, long nanos) {
		try {
			this.delegate.onAttempt(chain, target, verdict, nanos);
		}
		catch (RuntimeException | LinkageError | AssertionError ex) {
			failed(ex);
		}
	}

	@Override
	public void onAnswer(String chain, Target target, Answer answer) {
		try {
			this.delegate.onAnswer(chain, target, answer);
		}
		catch (RuntimeException | LinkageError | AssertionError ex) {
			failed(ex);
		}
	}

	@Override
	public void onRetry(String chain, Target target, RetryResult result) {
		try {
			this.delegate.onRetry(chain, target, result);
		}
		catch (RuntimeException | LinkageError | AssertionError ex) {
			failed(ex);
		}
	}

	@Override
	public void onBackoff(String chain, Target target, long nanos) {
		try {
			this.delegate.onBackoff(chain, target, nanos);
		}
		catch (RuntimeException | LinkageError | AssertionError ex) {
			failed(ex);
		}
	}

	@Override
	public void onServed(String chain, Target target, int position, long nanos) {
		try {
			this.delegate.onServed(chain, target, position, nanos);
		}
		catch (RuntimeException | LinkageError | AssertionError ex) {
			failed(ex);
		}
	}

	@Override
	public void onUnavailable(String chain, LlmUnavailableException exception, long nanos) {
		try {
			this.delegate.onUnavailable(chain, exception, nanos);
		}
		catch (RuntimeException | LinkageError | AssertionError ex) {
			failed(ex);
		}
	}

	@Override
	public void onCallEnded(String chain, long nanos, long backoffNanos) {
		try {
			this.delegate.onCallEnded(chain, nanos, backoffNanos);
		}
		catch (RuntimeException | LinkageError | AssertionError ex) {
			failed(ex);
		}
	}

	@Override
	public void onDegraded(String chain, LlmUnavailableException unavailable, @Nullable Throwable failure, long nanos) {
		try {
			this.delegate.onDegraded(chain, unavailable, failure, nanos);
		}
		catch (RuntimeException | LinkageError | AssertionError ex) {
			failed(ex);
		}
	}

	@Override
	public void onRejected(String chain, Target target, Verdict verdict, long nanos) {
		try {
			this.delegate.onRejected(chain, target, verdict, nanos);
		}
		catch (RuntimeException | LinkageError | AssertionError ex) {
			failed(ex);
		}
	}

	@Override
	public void onSkipped(String chain, Target target, ChainStep.Skip why) {
		try {
			this.delegate.onSkipped(chain, target, why);
		}
		catch (RuntimeException | LinkageError | AssertionError ex) {
			failed(ex);
		}
	}

	private void failed(Throwable ex) {
		logger.warn("Call observer {} failed", this.delegate, ex);
	}

}
