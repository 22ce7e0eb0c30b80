package io.github.llmresilience.metrics;

import java.util.Objects;

import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.overload.OverloadControl;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Overload control's gauges: each failure domain's adaptive limit on calls in flight and
 * its calls in flight (concurrency limits on), each provider account's local refusal
 * probability (client-side throttling on). Read when the registry is scraped; the calls
 * refused locally are counted as skips ({@code llm.resilience.skips}, reason
 * {@code at_concurrency_limit} or {@code throttled_locally}).
 */
public class OverloadMetrics implements MeterBinder {

	/** A failure domain's limit on calls in flight (gauge, tag {@code name}). */
	public static final String CONCURRENCY_LIMIT = "llm.resilience.concurrency.limit";

	/** A failure domain's calls in flight from this pod (gauge, tag {@code name}). */
	public static final String CONCURRENCY_IN_FLIGHT = "llm.resilience.concurrency.in.flight";

	/**
	 * The share of a provider account's first-shed traffic class refused here, 0 to 1
	 * (gauge, tag {@code name}: {@code provider/account}).
	 */
	public static final String THROTTLING_PROBABILITY = "llm.resilience.client.throttling.probability";

	private final LlmResilience resilience;

	public OverloadMetrics(LlmResilience resilience) {
		this.resilience = Objects.requireNonNull(resilience, "resilience");
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		OverloadControl control = this.resilience.overloadControl();
		for (String domain : control.domains()) {
			Gauge.builder(CONCURRENCY_LIMIT, control, (overload) -> overload.limit(domain))
				.description("Adaptive limit on calls in flight to the failure domain")
				.tag("name", domain)
				.strongReference(true)
				.register(registry);
			Gauge.builder(CONCURRENCY_IN_FLIGHT, control, (overload) -> overload.inFlight(domain))
				.description("Calls in flight to the failure domain from this pod")
				.tag("name", domain)
				.strongReference(true)
				.register(registry);
		}
		for (String account : control.accounts()) {
			Gauge.builder(THROTTLING_PROBABILITY, control, (overload) -> overload.refusalProbability(account))
				.description("Share of the first-shed traffic class refused here before sending")
				.tag("name", account)
				.strongReference(true)
				.register(registry);
		}
	}

}
