package io.github.llmresilience.change;

/**
 * Told about every {@link StateChange}. Called on the thread that caused the change; must
 * be quick and must not throw.
 */
@FunctionalInterface
public interface StateChangeListener {

	void onStateChange(StateChange change);

}
