package io.github.llmresilience.target;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.change.StateChanges;

/**
 * The configured targets and chains. Targets are fixed at startup; a chain's target list
 * can be replaced at runtime (by an operator through the actuator endpoint) and every
 * replacement is a {@link StateChange}.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public final class TargetRegistry {

	private final Map<String, Target> targets;

	private final Map<String, List<String>> configuredChains;

	private volatile Map<String, List<String>> chains;

	private final StateChanges events;

	private final List<Consumer<String>> chainListeners = new CopyOnWriteArrayList<>();

	/**
	 * @param targets the targets
	 * @param chains chain name to ordered target names
	 * @param events where chain edits are reported
	 * @throws IllegalArgumentException when a chain is empty, names an unknown target or
	 * names one twice
	 */
	public TargetRegistry(Collection<Target> targets, Map<String, List<String>> chains, StateChanges events) {
		Map<String, Target> byName = new LinkedHashMap<>();
		for (Target target : targets) {
			if (byName.put(target.name(), target) != null) {
				throw new IllegalArgumentException("Two targets are named '" + target.name() + "'");
			}
		}
		this.targets = Collections.unmodifiableMap(byName);
		Map<String, List<String>> copy = new LinkedHashMap<>();
		chains.forEach((name, members) -> {
			Target.requireName("chain", name);
			copy.put(name, checkedChain(name, members));
		});
		this.configuredChains = Collections.unmodifiableMap(copy);
		this.chains = this.configuredChains;
		this.events = events;
	}

	public Map<String, Target> targets() {
		return this.targets;
	}

	public Target target(String name) {
		Target target = this.targets.get(name);
		if (target == null) {
			throw new IllegalArgumentException(
					"No target named '" + name + "'; known targets: " + this.targets.keySet());
		}
		return target;
	}

	/** The chains as they are now, after any runtime edit. */
	public Map<String, List<String>> chains() {
		return this.chains;
	}

	/** The chains as configured at startup. */
	public Map<String, List<String>> configuredChains() {
		return this.configuredChains;
	}

	/**
	 * The ordered target names of a chain.
	 * @throws IllegalArgumentException for an unknown chain
	 */
	public List<String> chain(String name) {
		List<String> members = this.chains.get(name);
		if (members == null) {
			throw new IllegalArgumentException("No chain named '" + name + "'; known chains: " + this.chains.keySet());
		}
		return members;
	}

	/**
	 * Replace a chain's target list; nothing changes when the new list is invalid.
	 * @param name an existing chain
	 * @param members the new ordered target names
	 * @throws IllegalArgumentException when the chain is unknown or the list is empty,
	 * names an unknown target or names one twice; the message says which
	 */
	public synchronized void replaceChain(String name, List<String> members) {
		if (!this.chains.containsKey(name)) {
			throw new IllegalArgumentException("No chain named '" + name + "'; known chains: " + this.chains.keySet());
		}
		List<String> checked = checkedChain(name, members);
		List<String> before = this.chains.get(name);
		Map<String, List<String>> next = new LinkedHashMap<>(this.chains);
		next.put(name, checked);
		this.chains = Collections.unmodifiableMap(next);
		for (Consumer<String> listener : this.chainListeners) {
			listener.accept(name);
		}
		this.events.publish(StateChange.Kind.CHAIN_EDITED, name, before + " -> " + checked, null);
	}

	/** Register a callback told the name of each edited chain. */
	public void onChainEdited(Consumer<String> listener) {
		this.chainListeners.add(listener);
	}

	private List<String> checkedChain(String name, List<String> members) {
		if (members == null || members.isEmpty()) {
			throw new IllegalArgumentException("Chain '" + name + "' needs at least one target");
		}
		Set<String> seen = new HashSet<>();
		List<String> checked = new ArrayList<>(members.size());
		for (String member : members) {
			if (!this.targets.containsKey(member)) {
				throw new IllegalArgumentException("Chain '" + name + "' names unknown target '" + member
						+ "'; known targets: " + this.targets.keySet());
			}
			if (!seen.add(member)) {
				throw new IllegalArgumentException("Chain '" + name + "' names target '" + member + "' twice");
			}
			checked.add(member);
		}
		return List.copyOf(checked);
	}

}
