package io.github.llmresilience.metrics;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import io.github.llmresilience.classify.UnclassifiedListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Counts classifications that fell back to the default
 * ({@code llm.resilience.classification.unclassified}) by vendor, status and error type,
 * so that the vendor tables get maintained. The error type comes from the vendor; it is
 * already cut to 64 plain characters, and past {@value #MAX_SERIES} distinct series new
 * types are counted as {@code other}, so a vendor inventing types cannot flood the
 * registry.
 */
public class UnclassifiedMetrics implements UnclassifiedListener {

	/** Defaulted classifications (counter). */
	public static final String UNCLASSIFIED = "llm.resilience.classification.unclassified";

	/** The most distinct {@code (vendor, status, type)} series kept. */
	static final int MAX_SERIES = 100;

	private final MeterRegistry registry;

	private final Map<Series, Counter> counters = new ConcurrentHashMap<>();

	public UnclassifiedMetrics(MeterRegistry registry) {
		this.registry = Objects.requireNonNull(registry, "registry");
	}

	@Override
	public void unclassified(String vendor, int status, String errorType) {
		Series series = new Series(String.valueOf(vendor), status, (errorType != null) ? errorType : "none");
		Counter counter = this.counters.get(series);
		if (counter == null) {
			if (this.counters.size() >= MAX_SERIES) {
				series = new Series(series.vendor(), status, "other");
			}
			counter = this.counters.computeIfAbsent(series,
					(key) -> Counter.builder(UNCLASSIFIED)
						.description("Provider errors the vendor's classifier does not know, classified by default")
						.tags("vendor", key.vendor(), "status", Integer.toString(key.status()), "type", key.type())
						.register(this.registry));
		}
		counter.increment();
	}

	private record Series(String vendor, int status, String type) {
	}

}
