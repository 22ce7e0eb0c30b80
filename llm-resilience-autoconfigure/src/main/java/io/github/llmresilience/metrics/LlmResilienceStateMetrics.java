package io.github.llmresilience.metrics;

import java.util.Objects;

import io.github.llmresilience.execute.LlmResilience;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Gauges of what is out of service now: quota scopes gated after a rate limit, accounts
 * parked after a quota answer, accounts locked after credential errors. Read when the
 * registry is scraped, from the executor's state.
 */
public class LlmResilienceStateMetrics implements MeterBinder {

	/** Quota scopes gated now (gauge). */
	public static final String GATED_SCOPES = "llm.resilience.gated.scopes";

	/** Accounts parked now (gauge). */
	public static final String PARKED_ACCOUNTS = "llm.resilience.parked.accounts";

	/** Whether this pod reaches the fleet's store: 1 or 0 (gauge; fleet mode only). */
	public static final String FLEET_CONNECTED = "llm.resilience.fleet.connected";

	/** Accounts locked now (gauge). */
	public static final String LOCKED_ACCOUNTS = "llm.resilience.locked.accounts";

	private final LlmResilience resilience;

	public LlmResilienceStateMetrics(LlmResilience resilience) {
		this.resilience = Objects.requireNonNull(resilience, "resilience");
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		Gauge
			.builder(GATED_SCOPES, this.resilience,
					(resilience) -> resilience.state()
						.scopes()
						.values()
						.stream()
						.filter((scope) -> scope.gatedUntil() != null)
						.count())
			.description("Quota scopes (account/model) gated after a rate limit")
			.strongReference(true)
			.register(registry);
		Gauge.builder(PARKED_ACCOUNTS, this.resilience, (resilience) -> count(resilience, true))
			.description("Accounts parked after a quota answer")
			.strongReference(true)
			.register(registry);
		Gauge.builder(LOCKED_ACCOUNTS, this.resilience, (resilience) -> count(resilience, false))
			.description("Accounts locked after consecutive credential errors")
			.strongReference(true)
			.register(registry);
		if (this.resilience.fleet().enabled()) {
			Gauge.builder(FLEET_CONNECTED, this.resilience, LlmResilienceStateMetrics::connected)
				.description("Whether this pod reaches the fleet's store (1) or decides alone (0)")
				.strongReference(true)
				.register(registry);
		}
	}

	private static double connected(LlmResilience resilience) {
		return resilience.fleet().connected() ? 1 : 0;
	}

	private static double count(LlmResilience resilience, boolean parked) {
		return resilience.state()
			.accounts()
			.values()
			.stream()
			.filter((account) -> ((parked) ? account.parkedUntil() : account.lockedUntil()) != null)
			.count();
	}

}
