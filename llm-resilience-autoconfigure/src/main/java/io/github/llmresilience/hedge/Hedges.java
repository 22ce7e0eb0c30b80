package io.github.llmresilience.hedge;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * One engine's hedging: its settings and each chain's budget, made on the chain's first
 * stream. The engine asks it whether a late stream may be hedged; it holds no call's
 * state.
 * <p>
 * Engine-facing: public so that the engine can use it, not an API for applications.
 */
public final class Hedges {

	private final HedgingSettings settings;

	private final LongSupplier nanoTime;

	private final Map<String, HedgeBudget> budgets = new ConcurrentHashMap<>();

	/**
	 * @param settings the settings, enabled
	 * @param nanoTime the engine's monotonic time source, in nanoseconds
	 */
	public Hedges(HedgingSettings settings, LongSupplier nanoTime) {
		this.settings = Objects.requireNonNull(settings, "settings");
		this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
	}

	public HedgingSettings settings() {
		return this.settings;
	}

	/** The chain's budget: every chain's streams and hedges count apart. */
	public HedgeBudget budget(String chain) {
		HedgeBudget budget = this.budgets.get(chain);
		if (budget == null) {
			budget = this.budgets.computeIfAbsent(chain, (name) -> new HedgeBudget(this.nanoTime, this.settings));
		}
		return budget;
	}

}
