package io.github.llmresilience.execute;

import org.jspecify.annotations.Nullable;
import reactor.util.context.ContextView;

/**
 * Engine-facing: where each call's trace comes from (one Micrometer {@code Observation}
 * per call and per attempt when the application has an {@code ObservationRegistry}; see
 * {@code io.github.llmresilience.observation}). Beside the walk, not in it: the walk
 * tells the call's trace what it tells the observers, when an attempt starts and when the
 * call ends. {@link #NONE} costs a call one method that answers {@code null}.
 */
@FunctionalInterface
public interface CallTracing {

	/** No traces: the walk tells only the shared observers. */
	CallTracing NONE = (chain, reactor) -> null;

	/**
	 * A call through the chain starts.
	 * @param reactor the subscriber's Reactor context (empty for a blocking call), where
	 * a reactive caller's own trace is found (a WebFlux request's)
	 * @return its trace, or {@code null} for none
	 */
	@Nullable CallTrace start(String chain, ContextView reactor);

}
