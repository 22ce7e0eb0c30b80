package io.github.llmresilience.metrics;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.llmresilience.classify.UnclassifiedListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;

/**
 * Counts classifications that fell back to the default
 * ({@code llm.resilience.classification.unclassified}) by provider, status and error
 * type, so that the provider tables get maintained.
 *
 * <p>
 * Bounded: at most {@value #MAX_SERIES} distinct {@code (provider, status, type)} series.
 * Every defaulted classification past them is counted, never dropped, in one overflow
 * series per provider, {@code status=other, type=other}: an endpoint that invents error
 * types or status codes, or an application whose own exceptions are reported with status
 * 0 and their class's simple name, cannot flood the registry. (A provider id comes from
 * the application's configuration, not from a provider's answer, so there are as many
 * overflow series as configured providers.) The type is cut to 64 plain characters here
 * as well, whoever called.
 */
public class UnclassifiedMetrics implements UnclassifiedListener {

	/** Defaulted classifications (counter). */
	public static final String UNCLASSIFIED = "llm.resilience.classification.unclassified";

	/** The most distinct {@code (provider, status, type)} series kept. */
	static final int MAX_SERIES = 100;

	/** The status and type tags of a provider's overflow series. */
	static final String OTHER = "other";

	private static final int MAX_TYPE = 64;

	private final MeterRegistry registry;

	private final Map<Series, Counter> counters = new ConcurrentHashMap<>();

	private final Map<String, Counter> overflow = new ConcurrentHashMap<>();

	/**
	 * Series handed out so far. Taken inside computeIfAbsent, so that two threads seeing
	 * two new series at once cannot both take the last one (a size check before the
	 * insert could be passed by every thread at once).
	 */
	private final AtomicInteger taken = new AtomicInteger();

	public UnclassifiedMetrics(MeterRegistry registry) {
		this.registry = Objects.requireNonNull(registry, "registry");
	}

	@Override
	public void unclassified(String provider, int status, @Nullable String errorType) {
		Series series = new Series(String.valueOf(provider), status, type(errorType));
		Counter counter = this.counters.get(series);
		if (counter == null) {
			// Returns null, and inserts nothing, once every series is taken.
			counter = this.counters.computeIfAbsent(series, (key) -> (this.taken.getAndIncrement() < MAX_SERIES)
					? register(key.provider(), Integer.toString(key.status()), key.type()) : null);
		}
		if (counter == null) {
			counter = this.overflow.computeIfAbsent(series.provider(), (key) -> register(key, OTHER, OTHER));
		}
		counter.increment();
	}

	private Counter register(String provider, String status, String type) {
		return Counter.builder(UNCLASSIFIED)
			.description("Provider errors the provider's classifier does not know, classified by default")
			.tags("provider", provider, "status", status, "type", type)
			.register(this.registry);
	}

	/**
	 * At most 64 plain characters; {@code none} when there is nothing (an anonymous
	 * class).
	 */
	private static String type(@Nullable String errorType) {
		if (errorType == null) {
			return "none";
		}
		int length = Math.min(errorType.length(), MAX_TYPE);
		StringBuilder clean = new StringBuilder(length);
		for (int i = 0; i < length; i++) {
			char c = errorType.charAt(i);
			boolean plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'
					|| c == '-' || c == '.' || c == ':' || c == '/' || c == '$';
			clean.append(plain ? c : '_');
		}
		String type = clean.toString().strip();
		return type.isEmpty() ? "none" : type;
	}

	private record Series(String provider, int status, String type) {
	}

}
