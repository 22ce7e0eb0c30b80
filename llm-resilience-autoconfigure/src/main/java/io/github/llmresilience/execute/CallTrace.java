package io.github.llmresilience.execute;

import org.jspecify.annotations.Nullable;

/**
 * Engine-facing: the trace of one call, told what the call's observers are told (it is
 * one of them for this call, guarded as they are), when each attempt starts and when the
 * call ends. Its methods must not throw.
 */
public interface CallTrace extends CallObserver {

	/**
	 * An attempt starts (its target's breaker permit is held).
	 * @return what makes the attempt's trace current on a thread: the engine opens it
	 * around the call function, and {@link Attempt#inScope} where a call function hands
	 * its work to another thread
	 */
	AttemptScope attemptStarted(Attempt attempt);

	/**
	 * The call ended: answered ({@code error} is {@code null}), failed, or cancelled
	 * ({@link java.util.concurrent.CancellationException}). Told once; what is told after
	 * is ignored.
	 */
	void ended(@Nullable Throwable error);

}
