package io.github.llmresilience.state;

import java.time.Instant;
import java.util.Map;

/**
 * What every target, chain, failure domain, quota scope and account looked like at one
 * instant: a read-only copy, taken from one reading of the clock, safe to keep and to
 * serialize. Keys are never in it, nor base URLs (a query string may carry a key).
 *
 * @param at when it was taken
 * @param targets every target, by name, in configuration order
 * @param chains every chain, by name
 * @param breakers the breaker of every failure domain, by domain
 * @param scopes every quota scope, by key
 * @param accounts every account, by name
 * @param providers every provider id of a target, whether it is marked overloaded
 * @param fleet whether this pod shares state with a fleet, and how that goes
 */
public record ResilienceState(Instant at, Map<String, TargetState> targets, Map<String, ChainState> chains,
		Map<String, TargetState.BreakerState> breakers, Map<String, TargetState.ScopeState> scopes,
		Map<String, TargetState.AccountState> accounts, Map<String, ProviderState> providers, FleetState fleet) {

	/** A state without provider marks, of a pod deciding alone. */
	public ResilienceState(Instant at, Map<String, TargetState> targets, Map<String, ChainState> chains,
			Map<String, TargetState.BreakerState> breakers, Map<String, TargetState.ScopeState> scopes,
			Map<String, TargetState.AccountState> accounts) {
		this(at, targets, chains, breakers, scopes, accounts, Map.of(), FleetState.LOCAL);
	}

	/**
	 * One target's state.
	 * @param name the target's name
	 * @return its state
	 * @throws IllegalArgumentException when no target has that name
	 */
	public TargetState target(String name) {
		TargetState target = this.targets.get(name);
		if (target == null) {
			throw new IllegalArgumentException(
					"No target named '" + name + "'; known targets: " + this.targets.keySet());
		}
		return target;
	}

	/**
	 * One chain's state.
	 * @param name the chain's name
	 * @return its state
	 * @throws IllegalArgumentException when no chain has that name
	 */
	public ChainState chain(String name) {
		ChainState chain = this.chains.get(name);
		if (chain == null) {
			throw new IllegalArgumentException("No chain named '" + name + "'; known chains: " + this.chains.keySet());
		}
		return chain;
	}

}
