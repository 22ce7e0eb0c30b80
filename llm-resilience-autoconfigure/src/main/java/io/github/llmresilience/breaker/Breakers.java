package io.github.llmresilience.breaker;

import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.change.StateChanges;
import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.Verdict;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;

/**
 * One Resilience4j breaker per failure domain, in one {@link CircuitBreakerRegistry}
 * (which metrics bind to). The breakers' predicates follow the verdict table:
 * {@code AVAILABILITY} and {@code STREAM_INTERRUPTED} are failures, {@code THROTTLED} a
 * success (the account answered promptly), the rest ignored.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public final class Breakers {

	private static final Set<Outcome> IGNORED = Set.of(Outcome.REQUEST, Outcome.CONTENT_FILTER, Outcome.QUOTA,
			Outcome.CREDENTIAL);

	private final Clock clock;

	private final StateChanges events;

	private final CircuitBreakerRegistry registry;

	private final Map<String, Breaker> byDomain = new ConcurrentHashMap<>();

	public Breakers(Clock clock, StateChanges events) {
		this(clock, events, CircuitBreakerRegistry.ofDefaults());
	}

	/**
	 * @param registry where the Resilience4j breakers are kept, so that Resilience4j's
	 * own meter binders can find them
	 */
	public Breakers(Clock clock, StateChanges events, CircuitBreakerRegistry registry) {
		this.clock = clock;
		this.events = events;
		this.registry = registry;
	}

	/**
	 * The breaker of a failure domain, created on first use.
	 * @param domain the failure domain's key, such as {@code openai/gpt-4o/us}
	 * @param settings its thresholds (all targets of one domain must agree)
	 * @param classify how to classify an exception that reaches the breaker unclassified
	 * @return the breaker
	 * @throws IllegalArgumentException when the domain exists with other settings
	 */
	public Breaker forDomain(String domain, BreakerSettings settings, Function<Throwable, Verdict> classify) {
		Breaker breaker = this.byDomain.computeIfAbsent(domain, (key) -> create(key, settings, classify));
		if (!breaker.settings().equals(settings)) {
			throw new IllegalArgumentException("Failure domain '" + domain + "' is shared by targets with different "
					+ "breaker settings: " + breaker.settings() + " and " + settings);
		}
		return breaker;
	}

	public Breaker get(String domain) {
		return this.byDomain.get(domain);
	}

	public Collection<Breaker> all() {
		return this.byDomain.values();
	}

	/**
	 * Whether a breaker ignores a failure of this outcome (records neither failure nor
	 * success).
	 */
	static boolean ignores(Outcome outcome) {
		return IGNORED.contains(outcome);
	}

	private Breaker create(String domain, BreakerSettings settings, Function<Throwable, Verdict> classify) {
		Function<Throwable, Verdict> verdictOf = (error) -> (error instanceof ClassifiedFailure classified)
				? classified.verdict() : classify.apply(error);
		CircuitBreakerConfig config = CircuitBreakerConfig.custom()
			.clock(this.clock)
			.slidingWindow(settings.slidingWindowSize(),
					Math.min(settings.minimumCalls(), settings.slidingWindowSize()),
					CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
			.failureRateThreshold(settings.failureRateThreshold())
			.slowCallDurationThreshold(settings.slowCallDuration())
			.slowCallRateThreshold(settings.slowCallRateThreshold())
			.permittedNumberOfCallsInHalfOpenState(settings.halfOpenCalls())
			.waitIntervalFunctionInOpenState((openings) -> settings.openDurationAfter(openings).toMillis())
			.automaticTransitionFromOpenToHalfOpenEnabled(false)
			// The half-open safety limit runs on the injected clock in Breaker, not on
			// Resilience4j's scheduler thread of real time.
			.maxWaitDurationInHalfOpenState(Duration.ZERO)
			.recordException((error) -> verdictOf.apply(error).countsAsFailure())
			.ignoreException((error) -> ignores(verdictOf.apply(error).outcome()))
			.build();
		CircuitBreaker resilience4j = this.registry.circuitBreaker(domain, config);
		// No consumer on Resilience4j's event publisher: with one, Resilience4j would
		// build an event for every success. The breaker tells its changes itself.
		Breaker breaker = new Breaker(domain, resilience4j, settings, this.clock, Changes::new);
		// The registry (and the meter binders that read it) keeps the breaker every
		// caller moves, so that no move goes untold.
		this.registry.replace(domain, breaker.circuitBreaker());
		return breaker;
	}

	/** What one breaker's changes publish. */
	private final class Changes implements PublishingCircuitBreaker.Listener {

		private final Breaker breaker;

		Changes(Breaker breaker) {
			this.breaker = breaker;
		}

		@Override
		public void transitioned(CircuitBreaker.State from, CircuitBreaker.State to) {
			onTransition(this.breaker, from, to);
		}

		/**
		 * A reset is no state transition in Resilience4j, but it is a change: it closes
		 * the breaker, clears its window and starts the open duration over.
		 */
		@Override
		public void reset() {
			onReset(this.breaker);
		}

	}

	private void onReset(Breaker breaker) {
		breaker.closed();
		this.events.publish(StateChange.Kind.BREAKER_RESET, breaker.domain(), "window cleared", null);
	}

	private void onTransition(Breaker breaker, CircuitBreaker.State from, CircuitBreaker.State to) {
		// A transition a mode made (spend, the fleet, the canary) says why; else the
		// rates that made it.
		String reason = breaker.entered(to);
		CircuitBreaker.Metrics metrics = breaker.circuitBreaker().getMetrics();
		String detail = (reason != null) ? from + " -> " + to + " (" + reason + ")"
				: String.format("%s -> %s (failure rate %.1f%%, slow-call rate %.1f%%, %d calls)", from, to,
						metrics.getFailureRate(), metrics.getSlowCallRate(), metrics.getNumberOfBufferedCalls());
		switch (to) {
			case OPEN ->
				this.events.publish(StateChange.Kind.BREAKER_OPENED, breaker.domain(), detail, breaker.availableAt());
			case HALF_OPEN -> this.events.publish(StateChange.Kind.BREAKER_HALF_OPEN, breaker.domain(), detail, null);
			case CLOSED -> this.events.publish(StateChange.Kind.BREAKER_CLOSED, breaker.domain(), detail, null);
			case FORCED_OPEN ->
				this.events.publish(StateChange.Kind.BREAKER_FORCED_OPEN, breaker.domain(), detail, null);
			default -> this.events.publish(StateChange.Kind.BREAKER_DISABLED, breaker.domain(), detail, null);
		}
	}

}
