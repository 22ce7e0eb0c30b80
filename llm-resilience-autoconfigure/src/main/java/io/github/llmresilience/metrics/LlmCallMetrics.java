package io.github.llmresilience.metrics;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.execute.Answer;
import io.github.llmresilience.execute.CallObserver;
import io.github.llmresilience.execute.ChainStep;
import io.github.llmresilience.execute.LlmUnavailableException;
import io.github.llmresilience.target.Target;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import org.jspecify.annotations.Nullable;

/**
 * Micrometer meters of what calls do, enough to chart the watch list: provider latency
 * per attempt (against the application's own), retry rate, retries refused, backoff as a
 * share of latency, fallbacks, exhausted chains and degraded answers, and the provider's
 * own reported processing time beside the attempt timer ("is it them or us").
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

	/**
	 * Requests overload control refused here before sending, by reason:
	 * {@code at-concurrency-limit} or {@code throttled-locally} (counter).
	 */
	public static final String REFUSED_LOCALLY = "llm.resilience.refused.locally";

	/**
	 * Hedges of streams whose first element was late, by result: sent, won (the hedge's
	 * first element came first) or cancelled (the call's own walk answered first)
	 * (counter).
	 */
	public static final String HEDGES = "llm.resilience.hedges";

	/** Calls no target could serve (counter). */
	public static final String UNAVAILABLE = "llm.resilience.unavailable";

	/** Time spent waiting before retries (timer). */
	public static final String BACKOFF = "llm.resilience.backoff";

	/**
	 * Waits for a rate limit to clear or a pool's share to refill, instead of failing
	 * (timer).
	 */
	public static final String POOL_WAITS = "llm.resilience.pool.waits";

	/**
	 * The share of each served or unavailable call's time spent waiting before retries, 0
	 * to 1 (distribution summary).
	 */
	public static final String BACKOFF_SHARE = "llm.resilience.calls.backoff.share";

	/**
	 * Calls no target could serve that were given to their fallback, by whether it
	 * answered (counter).
	 */
	public static final String DEGRADED = "llm.resilience.degraded";

	/**
	 * The processing time the provider reports for an answer it served (timer), where the
	 * vendor sends it: {@value #OPENAI_PROCESSING_MS}.
	 */
	public static final String PROVIDER_PROCESSING = "llm.resilience.provider.processing";

	/**
	 * OpenAI's "time taken processing your API request", in milliseconds;
	 * OpenAI-compatible servers send it too.
	 */
	public static final String OPENAI_PROCESSING_MS = "openai-processing-ms";

	/** The longest reported processing time believed: a day; beyond is garbage. */
	private static final double MAX_PROCESSING_MILLIS = 86_400_000d;

	/** Buckets of the backoff share, so a chart can count calls mostly spent waiting. */
	private static final double[] SHARE_BUCKETS = { 0.1, 0.25, 0.5, 0.75, 0.9 };

	private static final String[] OUTCOMES = tags(Outcome.values());

	private static final String[] RETRY_RESULTS = tags(RetryResult.values());

	private static final String[] HEDGE_RESULTS = tags(HedgeResult.values());

	private final MeterRegistry registry;

	// Meters are looked up once per series: a call pays a map lookup, not a registration.
	// Attempts, which every call records, by chain, then target, then outcome: two
	// lookups by String keys and an array slot allocate nothing, where a composite key
	// is an object per call.
	private final Map<String, Map<String, AtomicReferenceArray<Timer>>> attempts = new ConcurrentHashMap<>();

	private final Map<SeriesKey, Counter> retries = new ConcurrentHashMap<>();

	private final Map<SeriesKey, Timer> backoffs = new ConcurrentHashMap<>();

	private final Map<SeriesKey, Counter> hedges = new ConcurrentHashMap<>();

	private final Map<SeriesKey, Counter> fallbacks = new ConcurrentHashMap<>();

	private final Map<SeriesKey, Counter> unavailable = new ConcurrentHashMap<>();

	private final Map<SeriesKey, Counter> refused = new ConcurrentHashMap<>();

	private final Map<SeriesKey, Timer> poolWaits = new ConcurrentHashMap<>();

	private final Map<SeriesKey, Counter> degraded = new ConcurrentHashMap<>();

	// By chain name: every call ends here, and looking up a String key allocates nothing.
	private final Map<String, DistributionSummary> backoffShares = new ConcurrentHashMap<>();

	private final Map<SeriesKey, Timer> processing = new ConcurrentHashMap<>();

	public LlmCallMetrics(MeterRegistry registry) {
		this.registry = Objects.requireNonNull(registry, "registry");
	}

	@Override
	public void onAttempt(String chain, Target target, Verdict verdict, long nanos) {
		int outcome = verdict.outcome().ordinal();
		Map<String, AtomicReferenceArray<Timer>> byTarget = this.attempts.get(chain);
		if (byTarget == null) {
			byTarget = this.attempts.computeIfAbsent(chain, (key) -> new ConcurrentHashMap<>());
		}
		AtomicReferenceArray<Timer> byOutcome = byTarget.get(target.name());
		if (byOutcome == null) {
			byOutcome = byTarget.computeIfAbsent(target.name(), (key) -> new AtomicReferenceArray<>(OUTCOMES.length));
		}
		Timer timer = byOutcome.get(outcome);
		if (timer == null) {
			// Two threads may both register: the registry hands both the same meter.
			timer = Timer.builder(CALLS)
				.description("Attempts against LLM providers, by outcome")
				.tags(targetTags(chain, target).and("outcome", OUTCOMES[outcome]))
				.register(this.registry);
			byOutcome.set(outcome, timer);
		}
		timer.record(nanos, TimeUnit.NANOSECONDS);
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
	public void onSkipped(String chain, Target target, ChainStep.Skip why) {
		if (why != ChainStep.Skip.AT_CONCURRENCY_LIMIT && why != ChainStep.Skip.THROTTLED_LOCALLY) {
			return;
		}
		String tag = (why == ChainStep.Skip.AT_CONCURRENCY_LIMIT) ? "at-concurrency-limit" : "throttled-locally";
		this.refused
			.computeIfAbsent(new SeriesKey(chain, target.name(), tag),
					(key) -> Counter.builder(REFUSED_LOCALLY)
						.description("Requests overload control refused here before sending, by reason")
						.tags(targetTags(chain, target).and("reason", tag))
						.register(this.registry))
			.increment();
	}

	@Override
	public void onHedge(String chain, Target target, HedgeResult result) {
		String tag = HEDGE_RESULTS[result.ordinal()];
		this.hedges
			.computeIfAbsent(new SeriesKey(chain, target.name(), tag),
					(key) -> Counter.builder(HEDGES)
						.description("Hedges of streams whose first element was late: sent, won or cancelled")
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

	@Override
	public void onCallEnded(String chain, long nanos, long backoffNanos) {
		double share = (nanos > 0) ? Math.min(1d, Math.max(0d, (double) backoffNanos / nanos)) : 0d;
		// Every call ends here: a plain get first, so that only a new chain pays for a
		// lambda.
		DistributionSummary summary = this.backoffShares.get(chain);
		if (summary == null) {
			summary = this.backoffShares.computeIfAbsent(chain, this::backoffShare);
		}
		summary.record(share);
	}

	private DistributionSummary backoffShare(String chain) {
		return DistributionSummary.builder(BACKOFF_SHARE)
			.description("Share of each served or unavailable call's time spent waiting before retries")
			.baseUnit("ratio")
			.serviceLevelObjectives(SHARE_BUCKETS)
			.tags("chain", chain)
			.register(this.registry);
	}

	@Override
	public void onDegraded(String chain, LlmUnavailableException unavailable, @Nullable Throwable failure, long nanos) {
		String result = (failure != null) ? "failed" : "answered";
		this.degraded
			.computeIfAbsent(new SeriesKey(chain, "", result),
					(key) -> Counter.builder(DEGRADED)
						.description("Calls no target could serve that were given to their fallback, by its result")
						.tags("chain", chain, "result", result)
						.register(this.registry))
			.increment();
	}

	@Override
	public void onAnswer(String chain, Target target, Answer answer) {
		processing(chain, target, answer.header(OPENAI_PROCESSING_MS));
	}

	/**
	 * Record the processing time a provider reported for an answer it served, from the
	 * value of its {@value #OPENAI_PROCESSING_MS} header; an absent, negative, oversized
	 * or unreadable value is ignored.
	 */
	void processing(String chain, Target target, @Nullable String millis) {
		double value = processingMillis(millis);
		if (value < 0) {
			return;
		}
		this.processing
			.computeIfAbsent(new SeriesKey(chain, target.name(), ""),
					(key) -> Timer.builder(PROVIDER_PROCESSING)
						.description("Processing time the provider reports for the answers it served")
						.tags(targetTags(chain, target))
						.register(this.registry))
			.record((long) (value * 1_000_000d), TimeUnit.NANOSECONDS);
	}

	/**
	 * Milliseconds as a vendor writes them ({@code 123} or {@code 123.4}), or -1 for
	 * anything else: signs, exponents, {@code NaN} and other forms
	 * {@link Double#parseDouble} would take are not a vendor's.
	 */
	static double processingMillis(@Nullable String text) {
		if (text == null) {
			return -1;
		}
		String value = text.trim();
		int length = value.length();
		if (length == 0 || length > 20) {
			return -1;
		}
		boolean point = false;
		for (int i = 0; i < length; i++) {
			char c = value.charAt(i);
			if (c == '.' && !point && i > 0 && i < length - 1) {
				point = true;
			}
			else if (c < '0' || c > '9') {
				return -1;
			}
		}
		double millis = Double.parseDouble(value);
		return (millis <= MAX_PROCESSING_MILLIS) ? millis : -1;
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
