package io.github.llmresilience.execute;

import io.github.llmresilience.overload.ProviderOverloads;

/**
 * The order a call tries its chain's targets in while a provider is marked overloaded:
 * the first untried target of another provider goes first, and the overloaded provider's
 * targets (its other models too) keep their order after it. Only the untried part moves:
 * the tried targets stay where their verdicts were recorded.
 */
final class OverloadOrder {

	private OverloadOrder() {
	}

	/**
	 * The order to try {@code targets} in from {@code index} on.
	 * @return the same array when nothing moves, else a copy (rare: a provider is
	 * overloaded), so that the chain's own order stays
	 */
	static TargetRuntime[] preferOthers(TargetRuntime[] targets, int index, ProviderOverloads overloads,
			long nowMillis) {
		if (!isOverloaded(targets[index], overloads, nowMillis)) {
			return targets;
		}
		for (int j = index + 1; j < targets.length; j++) {
			if (!isOverloaded(targets[j], overloads, nowMillis)) {
				TargetRuntime[] order = targets.clone();
				System.arraycopy(targets, index, order, index + 1, j - index);
				order[index] = targets[j];
				return order;
			}
		}
		return targets;
	}

	/**
	 * Whether an untried target of a provider not marked overloaded is left after
	 * {@code index}: then a provider-wide answer is not retried on its own provider.
	 */
	static boolean otherAhead(TargetRuntime[] targets, int index, ProviderOverloads overloads, long nowMillis) {
		for (int j = index + 1; j < targets.length; j++) {
			if (!isOverloaded(targets[j], overloads, nowMillis)) {
				return true;
			}
		}
		return false;
	}

	private static boolean isOverloaded(TargetRuntime target, ProviderOverloads overloads, long nowMillis) {
		return overloads.isOverloaded(target.target().provider(), nowMillis);
	}

}
