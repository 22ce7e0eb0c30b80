package io.github.llmresilience.metrics;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.change.StateChangeListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Counts state changes ({@code llm.resilience.state.transitions}) by kind and subject: a
 * breaker opening, a scope gated, an account parked, a chain edited. Subjects are failure
 * domains, quota scopes, accounts and chains, all named by configuration.
 */
public class StateChangeMetrics implements StateChangeListener {

	/** State changes (counter). */
	public static final String TRANSITIONS = "llm.resilience.state.transitions";

	private final MeterRegistry registry;

	private final Map<String, Counter> counters = new ConcurrentHashMap<>();

	public StateChangeMetrics(MeterRegistry registry) {
		this.registry = Objects.requireNonNull(registry, "registry");
	}

	@Override
	public void onStateChange(StateChange change) {
		String kind = change.kind().tag();
		this.counters
			.computeIfAbsent(kind + '\n' + change.subject(),
					(key) -> Counter.builder(TRANSITIONS)
						.description("State changes: breaker transitions, gated scopes, parked and locked accounts, "
								+ "chain edits")
						.tags("kind", kind, "subject", change.subject())
						.register(this.registry))
			.increment();
	}

}
