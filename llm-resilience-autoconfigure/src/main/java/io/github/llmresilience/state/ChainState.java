package io.github.llmresilience.state;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * One chain: its targets in order and whether any of them could serve.
 *
 * @param name the chain's name
 * @param targets its targets' names, in the order they are tried
 * @param configuredTargets its targets as configured, before any operator's edit
 * @param usable whether at least one of its targets could be called now
 * @param availableAt when its first target may serve again; {@code null} when one can
 * now. A breaker held open by an operator counts with its longest open duration: a time
 * to look again, not a promise.
 */
public record ChainState(String name, List<String> targets, List<String> configuredTargets, boolean usable,
		@Nullable Instant availableAt) {

	/** Whether an operator has changed its targets. */
	public boolean edited() {
		return !this.targets.equals(this.configuredTargets);
	}

}
