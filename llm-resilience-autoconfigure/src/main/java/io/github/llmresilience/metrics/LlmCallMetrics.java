package io.github.llmresilience.metrics;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.execute.CallObserver;
import io.github.llmresilience.execute.LlmUnavailableException;
import io.github.llmresilience.target.Target;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

/**
 * Micrometer meters of what calls do, enough to chart the watch list: provider latency
 * per attempt (against the application's own), retry rate, retries refused, backoff as a
 * share of latency, fallbacks and exhausted chains.
 *
 * <p>
 * Every tag value comes from configuration (chain and target names, provider, model,
 * region) or from a closed set (outcome, retry result), so the number of series is
 * bounded; no error message, URL or credential becomes a tag.
 */
public class LlmCallMetrics implements CallObserver {

	/** Attempts against a provider (timer). */
	public static final String CALLS = "llm.resilience.calls";

	/** Retry decisions (counter). */
	public static final String RETRIES = "llm.resilience.retries";

	/** Calls served by a target other than the chain's first (counter). */
	public static final String FALLBACKS = "llm.resilience.fallbacks";

	/** Calls no target could serve (counter). */
	public static final String UNAVAILABLE = "llm.resilience.unavailable";

	/** Time spent waiting before retries (timer). */
	public static final String BACKOFF = "llm.resilience.backoff";

	/**
	 * Waits for a rate limit to clear or a pool's share to refill, instead of failing
	 * (timer).
	 */
	public static final String POOL_WAITS = "llm.resilience.pool.waits";

	private static final String[] OUTCOMES = tags(Outcome.values());

	private static final String[] RETRY_RESULTS = tags(RetryResult.values());

	private final MeterRegistry registry;

	// Meters are looked up once per series: a call pays a map lookup, not a registration.
	private final Map<SeriesKey, Timer> attempts = new ConcurrentHashMap<>();

	private final Map<SeriesKey, Counter> retries = new ConcurrentHashMap<>();

	private final Map<SeriesKey, Timer> backoffs = new ConcurrentHashMap<>();

	private final Map<SeriesKey, Counter> fallbacks = new ConcurrentHashMap<>();

	private final Map<SeriesKey, Counter> unavailable = new ConcurrentHashMap<>();

	private final Map<SeriesKey, Timer> poolWaits = new ConcurrentHashMap<>();

	public LlmCallMetrics(MeterRegistry registry) {
		this.registry = Objects.requireNonNull(registry, "registry");
	}

	@Override
	public void onAttempt(String chain, Target target, Verdict verdict, long nanos) {
		String outcome = OUTCOMES[verdict.outcome().ordinal()];
		this.attempts
			.computeIfAbsent(new SeriesKey(chain, target.name(), outcome),
					(key) -> Timer.builder(CALLS)
						.description("Attempts against LLM providers, by outcome")
						.tags(targetTags(chain, target).and("outcome", outcome))
						.register(this.registry))
			.record(nanos, TimeUnit.NANOSECONDS);
	}

	@Override
	public void onRetry(String chain, Target target, RetryResult result) {
		String tag = RETRY_RESULTS[result.ordinal()];
		this.retries
			.computeIfAbsent(new SeriesKey(chain, target.name(), tag),
					(key) -> Counter.builder(RETRIES)
						.description("Retry decisions on a retryable failure: attempted, or refused and why")
						.tags(targetTags(chain, target).and("result", tag))
						.register(this.registry))
			.increment();
	}

	@Override
	public void onBackoff(String chain, Target target, long nanos) {
		this.backoffs
			.computeIfAbsent(new SeriesKey(chain, target.name(), ""),
					(key) -> Timer.builder(BACKOFF)
						.description("Time spent waiting before a retry")
						.tags(targetTags(chain, target))
						.register(this.registry))
			.record(nanos, TimeUnit.NANOSECONDS);
	}

	@Override
	public void onServed(String chain, Target target, int position, long nanos) {
		if (position > 0) {
			this.fallbacks
				.computeIfAbsent(new SeriesKey(chain, target.name(), ""),
						(key) -> Counter.builder(FALLBACKS)
							.description("Calls served by a target other than the chain's first")
							.tags(targetTags(chain, target))
							.register(this.registry))
				.increment();
		}
	}

	@Override
	public void onUnavailable(String chain, LlmUnavailableException exception, long nanos) {
		String throttled = Boolean.toString(exception.allThrottled());
		this.unavailable
			.computeIfAbsent(new SeriesKey(chain, "", throttled),
					(key) -> Counter.builder(UNAVAILABLE)
						.description("Calls no target of the chain could serve")
						.tags("chain", chain, "throttled", throttled)
						.register(this.registry))
			.increment();
	}

	@Override
	public void onPoolWait(String chain, String pool, long nanos) {
		this.poolWaits
			.computeIfAbsent(new SeriesKey(chain, pool, ""),
					(key) -> Timer.builder(POOL_WAITS)
						.description("Waits for a rate limit to clear or a pool's share to refill, instead of failing")
						.tags("chain", chain, "pool", pool)
						.register(this.registry))
			.record(nanos, TimeUnit.NANOSECONDS);
	}

	private static Tags targetTags(String chain, Target target) {
		return Tags.of("chain", chain, "target", target.name(), "provider", target.provider(), "model", target.model(),
				"region", target.region());
	}

	/**
	 * Tag values of an enum: {@code BUDGET_EXHAUSTED} becomes {@code budget-exhausted}.
	 */
	private static String[] tags(Enum<?>[] values) {
		String[] tags = new String[values.length];
		for (Enum<?> value : values) {
			tags[value.ordinal()] = value.name().toLowerCase(Locale.ROOT).replace('_', '-');
		}
		return tags;
	}

	private record SeriesKey(String chain, String target, String variant) {
	}

}
