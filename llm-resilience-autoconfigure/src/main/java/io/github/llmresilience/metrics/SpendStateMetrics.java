package io.github.llmresilience.metrics;

import java.util.Objects;
import java.util.function.ToDoubleFunction;

import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.spend.SpendState;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Gauges of each failure domain's spend, when the spend trigger is on, read when the
 * registry is scraped: the current window's spend per call, the median it is judged
 * against, and their ratio, which opens the breaker at {@code spend.open-multiple}.
 * Tagged {@code name} with the failure domain, like Resilience4j's breaker meters.
 */
public class SpendStateMetrics implements MeterBinder {

	/** The current window's spend per call as a multiple of the median (gauge). */
	public static final String RATIO = "llm.resilience.spend.ratio";

	/** The current window's spend per call (gauge). */
	public static final String PER_CALL = "llm.resilience.spend.per.call";

	/** The median spend per call of the past windows (gauge). */
	public static final String MEDIAN = "llm.resilience.spend.median";

	private final LlmResilience resilience;

	public SpendStateMetrics(LlmResilience resilience) {
		this.resilience = Objects.requireNonNull(resilience, "resilience");
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		// The domains are settled at startup; none when the trigger is off.
		this.resilience.spend().forEach((domain, state) -> {
			gauge(registry, RATIO, domain, state.unit(), SpendState::ratio,
					"Spend per call of the current window, as a multiple of the median of past windows");
			gauge(registry, PER_CALL, domain, state.unit(), SpendState::perCall,
					"Spend per call of the current window");
			gauge(registry, MEDIAN, domain, state.unit(), SpendState::median,
					"Median spend per call of the past windows");
		});
	}

	private void gauge(MeterRegistry registry, String name, String domain, String unit,
			ToDoubleFunction<SpendState> value, String description) {
		Gauge.builder(name, this.resilience, (resilience) -> {
			SpendState state = resilience.spend().get(domain);
			return (state != null) ? value.applyAsDouble(state) : Double.NaN;
		}).description(description).tag("name", domain).tag("unit", unit).strongReference(true).register(registry);
	}

}
