package io.github.llmresilience.execute;

import java.util.Arrays;
import java.util.List;

import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.target.Target;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every observer of an engine, in order, each guarded: an observer that throws is logged
 * and the next one is still told, and no call fails for it. The one fan-out: the
 * auto-configuration hands every {@link CallObserver} bean over as a list
 * ({@link CallObserver#of(List)}), and the engine guards the one it is given.
 *
 * <p>
 * Each call is told through one of these: the engine's shared one when the call has no
 * trace, else a copy with the call's {@link CallTrace} after the shared observers, which
 * is also told when an attempt starts and when the call ends.
 */
final class CallObservers implements CallObserver {

	private static final Logger logger = LoggerFactory.getLogger(CallObservers.class);

	/** An engine without observers: its untraced calls tell nobody. */
	private static final CallObservers EMPTY = new CallObservers(new CallObserver[0], null);

	private final CallObserver[] observers;

	/** The call's trace, the last of {@link #observers}; {@code null} without one. */
	private final @Nullable CallTrace trace;

	private CallObservers(CallObserver[] observers, @Nullable CallTrace trace) {
		this.observers = observers;
		this.trace = trace;
	}

	/** The observers, guarded; {@link CallObserver#NONE} when there are none. */
	static CallObserver of(List<CallObserver> observers) {
		List<CallObserver> told = observers.stream().filter((observer) -> observer != CallObserver.NONE).toList();
		if (told.isEmpty()) {
			return CallObserver.NONE;
		}
		if (told.size() == 1 && told.get(0) instanceof CallObservers guarded) {
			return guarded;
		}
		return new CallObservers(told.toArray(CallObserver[]::new), null);
	}

	/** An engine's shared observer, guarded: what every call tells. */
	static CallObservers shared(CallObserver observer) {
		return (of(List.of(observer)) instanceof CallObservers guarded) ? guarded : EMPTY;
	}

	/**
	 * One walk's observers when a call has two (a hedged stream's): {@code observer},
	 * which decides what each walk tells the call's observers, and the call's trace, told
	 * when an attempt of this walk starts and when the call ends ({@code null} for none).
	 */
	static CallObservers of(CallObserver observer, @Nullable CallTrace trace) {
		return new CallObservers(new CallObserver[] { observer }, trace);
	}

	/**
	 * One call's observers: these, or, when the call has a trace, these and the trace
	 * after them.
	 */
	CallObservers traced(@Nullable CallTrace trace) {
		if (trace == null) {
			return this;
		}
		CallObserver[] observers = Arrays.copyOf(this.observers, this.observers.length + 1);
		observers[this.observers.length] = trace;
		return new CallObservers(observers, trace);
	}

	/**
	 * Whether the call has a trace to be told when an attempt starts and when it ends.
	 */
	boolean traced() {
		return this.trace != null;
	}

	/**
	 * An attempt starts (see {@link CallTrace#attemptStarted}): the trace's scope becomes
	 * the attempt's; without a trace the attempt keeps {@link AttemptScope#NONE}.
	 */
	void attemptStarted(Attempt attempt) {
		if (this.trace != null) {
			attempt.scope(this.trace.attemptStarted(attempt));
		}
	}

	/** The call ended (see {@link CallTrace#ended}). */
	void ended(@Nullable Throwable error) {
		if (this.trace != null) {
			this.trace.ended(error);
		}
	}

	@Override
	public void onAttempt(String chain, Target target, Verdict verdict, long nanos) {
		for (CallObserver observer : this.observers) {
			try {
				observer.onAttempt(chain, target, verdict, nanos);
			}
			catch (RuntimeException | LinkageError | AssertionError ex) {
				failed(observer, ex);
			}
		}
	}

	@Override
	public void onAnswer(String chain, Target target, Answer answer) {
		for (CallObserver observer : this.observers) {
			try {
				observer.onAnswer(chain, target, answer);
			}
			catch (RuntimeException | LinkageError | AssertionError ex) {
				failed(observer, ex);
			}
		}
	}

	@Override
	public void onRetry(String chain, Target target, RetryResult result) {
		for (CallObserver observer : this.observers) {
			try {
				observer.onRetry(chain, target, result);
			}
			catch (RuntimeException | LinkageError | AssertionError ex) {
				failed(observer, ex);
			}
		}
	}

	@Override
	public void onBackoff(String chain, Target target, long nanos) {
		for (CallObserver observer : this.observers) {
			try {
				observer.onBackoff(chain, target, nanos);
			}
			catch (RuntimeException | LinkageError | AssertionError ex) {
				failed(observer, ex);
			}
		}
	}

	@Override
	public void onServed(String chain, Target target, int position, long nanos) {
		for (CallObserver observer : this.observers) {
			try {
				observer.onServed(chain, target, position, nanos);
			}
			catch (RuntimeException | LinkageError | AssertionError ex) {
				failed(observer, ex);
			}
		}
	}

	@Override
	public void onUnavailable(String chain, LlmUnavailableException exception, long nanos) {
		for (CallObserver observer : this.observers) {
			try {
				observer.onUnavailable(chain, exception, nanos);
			}
			catch (RuntimeException | LinkageError | AssertionError ex) {
				failed(observer, ex);
			}
		}
	}

	@Override
	public void onCallEnded(String chain, long nanos, long backoffNanos) {
		for (CallObserver observer : this.observers) {
			try {
				observer.onCallEnded(chain, nanos, backoffNanos);
			}
			catch (RuntimeException | LinkageError | AssertionError ex) {
				failed(observer, ex);
			}
		}
	}

	@Override
	public void onDegraded(String chain, LlmUnavailableException unavailable, @Nullable Throwable failure, long nanos) {
		for (CallObserver observer : this.observers) {
			try {
				observer.onDegraded(chain, unavailable, failure, nanos);
			}
			catch (RuntimeException | LinkageError | AssertionError ex) {
				failed(observer, ex);
			}
		}
	}

	@Override
	public void onRejected(String chain, Target target, Verdict verdict, long nanos) {
		for (CallObserver observer : this.observers) {
			try {
				observer.onRejected(chain, target, verdict, nanos);
			}
			catch (RuntimeException | LinkageError | AssertionError ex) {
				failed(observer, ex);
			}
		}
	}

	@Override
	public void onSkipped(String chain, Target target, ChainStep.Skip why) {
		for (CallObserver observer : this.observers) {
			try {
				observer.onSkipped(chain, target, why);
			}
			catch (RuntimeException | LinkageError | AssertionError ex) {
				failed(observer, ex);
			}
		}
	}

	@Override
	public void onPoolWait(String chain, String pool, long nanos) {
		for (CallObserver observer : this.observers) {
			try {
				observer.onPoolWait(chain, pool, nanos);
			}
			catch (RuntimeException | LinkageError | AssertionError ex) {
				failed(observer, ex);
			}
		}
	}

	@Override
	public void onHedge(String chain, Target target, HedgeResult result) {
		for (CallObserver observer : this.observers) {
			try {
				observer.onHedge(chain, target, result);
			}
			catch (RuntimeException | LinkageError | AssertionError ex) {
				failed(observer, ex);
			}
		}
	}

	private static void failed(CallObserver observer, Throwable ex) {
		logger.warn("Call observer {} failed", observer, ex);
	}

}
