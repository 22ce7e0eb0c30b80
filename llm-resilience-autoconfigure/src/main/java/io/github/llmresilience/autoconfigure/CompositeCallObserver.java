package io.github.llmresilience.autoconfigure;

import java.util.List;

import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.execute.Answer;
import io.github.llmresilience.execute.CallObserver;
import io.github.llmresilience.execute.ChainStep;
import io.github.llmresilience.execute.LlmUnavailableException;
import io.github.llmresilience.target.Target;
import org.jspecify.annotations.Nullable;

/** Every {@link CallObserver} bean, in order. */
final class CompositeCallObserver implements CallObserver {

	private final CallObserver[] observers;

	private CompositeCallObserver(List<CallObserver> observers) {
		this.observers = observers.toArray(CallObserver[]::new);
	}

	static CallObserver of(List<CallObserver> observers) {
		return switch (observers.size()) {
			case 0 -> CallObserver.NONE;
			case 1 -> observers.get(0);
			default -> new CompositeCallObserver(observers);
		};
	}

	@Override
	public void onAttempt(String chain, Target target, Verdict verdict, long nanos) {
		for (CallObserver observer : this.observers) {
			observer.onAttempt(chain, target, verdict, nanos);
		}
	}

	@Override
	public void onRetry(String chain, Target target, RetryResult result) {
		for (CallObserver observer : this.observers) {
			observer.onRetry(chain, target, result);
		}
	}

	@Override
	public void onBackoff(String chain, Target target, long nanos) {
		for (CallObserver observer : this.observers) {
			observer.onBackoff(chain, target, nanos);
		}
	}

	@Override
	public void onAnswer(String chain, Target target, Answer answer) {
		for (CallObserver observer : this.observers) {
			observer.onAnswer(chain, target, answer);
		}
	}

	@Override
	public void onServed(String chain, Target target, int position, long nanos) {
		for (CallObserver observer : this.observers) {
			observer.onServed(chain, target, position, nanos);
		}
	}

	@Override
	public void onUnavailable(String chain, LlmUnavailableException exception, long nanos) {
		for (CallObserver observer : this.observers) {
			observer.onUnavailable(chain, exception, nanos);
		}
	}

	@Override
	public void onCallEnded(String chain, long nanos, long backoffNanos) {
		for (CallObserver observer : this.observers) {
			observer.onCallEnded(chain, nanos, backoffNanos);
		}
	}

	@Override
	public void onDegraded(String chain, LlmUnavailableException unavailable, @Nullable Throwable failure, long nanos) {
		for (CallObserver observer : this.observers) {
			observer.onDegraded(chain, unavailable, failure, nanos);
		}
	}

	@Override
	public void onRejected(String chain, Target target, Verdict verdict, long nanos) {
		for (CallObserver observer : this.observers) {
			observer.onRejected(chain, target, verdict, nanos);
		}
	}

	@Override
	public void onSkipped(String chain, Target target, ChainStep.Skip why) {
		for (CallObserver observer : this.observers) {
			observer.onSkipped(chain, target, why);
		}
	}

}
