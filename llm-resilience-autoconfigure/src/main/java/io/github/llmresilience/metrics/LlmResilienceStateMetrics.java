package io.github.llmresilience.metrics;

import java.util.Objects;

import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.execute.LlmResilience;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Gauges of what is out of service now: quota scopes gated after a rate limit, accounts
 * parked after a quota answer, accounts locked after credential errors. Read when the
 * registry is scraped, from the executor's state. And each failure domain's breaker
 * thresholds, so that a dashboard draws the rates against the thresholds in force.
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

	/**
	 * A failure domain's failure-rate threshold, in percent (gauge, tag {@code name}).
	 */
	public static final String FAILURE_RATE_THRESHOLD = "llm.resilience.breaker.failure.rate.threshold";

	/**
	 * A failure domain's slow-call-rate threshold, in percent (gauge, tag {@code name}).
	 */
	public static final String SLOW_CALL_RATE_THRESHOLD = "llm.resilience.breaker.slow.call.rate.threshold";

	/** Calls waiting now for a rate limit to clear, by pool (gauge, tag {@code pool}). */
	public static final String POOL_QUEUED = "llm.resilience.pool.queued";

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
		for (String pool : this.resilience.pools().queued().keySet()) {
			Gauge
				.builder(POOL_QUEUED, this.resilience,
						(resilience) -> resilience.pools().queued().getOrDefault(pool, 0))
				.description("Calls waiting now for a rate limit to clear or their pool's share to refill")
				.tag("pool", pool)
				.strongReference(true)
				.register(registry);
		}
		Gauge.builder(PARKED_ACCOUNTS, this.resilience, (resilience) -> count(resilience, true))
			.description("Accounts parked after a quota answer")
			.strongReference(true)
			.register(registry);
		Gauge.builder(LOCKED_ACCOUNTS, this.resilience, (resilience) -> count(resilience, false))
			.description("Accounts locked after consecutive credential errors")
			.strongReference(true)
			.register(registry);
		// Thresholds are settled at startup: one constant series per failure domain,
		// tagged like Resilience4j's breaker meters.
		this.resilience.state().breakers().forEach((domain, breaker) -> {
			BreakerSettings settings = breaker.settings();
			Gauge.builder(FAILURE_RATE_THRESHOLD, settings::failureRateThreshold)
				.description("Failure rate, in percent, that opens the breaker")
				.tag("name", domain)
				.register(registry);
			Gauge.builder(SLOW_CALL_RATE_THRESHOLD, settings::slowCallRateThreshold)
				.description("Slow-call rate, in percent, that opens the breaker")
				.tag("name", domain)
				.register(registry);
		});
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
