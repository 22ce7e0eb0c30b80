package io.github.llmresilience.observation;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CancellationException;

import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.execute.Attempt;
import io.github.llmresilience.execute.AttemptScope;
import io.github.llmresilience.execute.CallTrace;
import io.github.llmresilience.execute.ChainStep;
import io.github.llmresilience.execute.LlmRejectedException;
import io.github.llmresilience.execute.LlmUnavailableException;
import io.github.llmresilience.target.Target;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import reactor.util.context.Context;

/**
 * One call's observation and its attempts'. The walk tells it in order, from whichever
 * thread the call is on; its end may race a cancellation, so every method holds the lock
 * (never contended but by that race). Nothing here throws into the walk: Micrometer's
 * handlers are the application's, and a failing one is the tracer's problem, not the
 * call's.
 */
final class CallObservation implements CallTrace {

	private static final String NONE = "none";

	private final ObservationRegistry registry;

	private final Observation call;

	/** The attempt in flight, or {@code null} between attempts. */
	private @Nullable Observation attempt;

	private int attempts;

	private @Nullable String outcome;

	private String servedBy = NONE;

	private String failFast = NONE;

	private boolean ended;

	/**
	 * @param parent the reactive caller's observation, from its Reactor context; else the
	 * one current on this thread, if any, is the call's parent
	 */
	CallObservation(ObservationRegistry registry, String chain, @Nullable Observation parent) {
		this.registry = registry;
		this.call = Observation.createNotStarted(LlmObservations.CALL, registry)
			.parentObservation((parent != null) ? parent : registry.getCurrentObservation())
			.contextualName("llm chain " + chain)
			.lowCardinalityKeyValue(LlmObservations.CHAIN, chain)
			.start();
	}

	@Override
	public synchronized AttemptScope attemptStarted(Attempt attempt) {
		stopAttempt(null);
		if (this.ended) {
			return AttemptScope.NONE;
		}
		this.attempts++;
		Target target = attempt.target();
		Observation observation = Observation.createNotStarted(LlmObservations.ATTEMPT, this.registry)
			.parentObservation(this.call)
			.contextualName("llm attempt " + target.name())
			.lowCardinalityKeyValue(LlmObservations.CHAIN, attempt.chain())
			.lowCardinalityKeyValue(LlmObservations.TARGET, target.name())
			.lowCardinalityKeyValue(LlmObservations.GEN_AI_PROVIDER, target.provider())
			.lowCardinalityKeyValue(LlmObservations.GEN_AI_SYSTEM, target.provider())
			.lowCardinalityKeyValue(LlmObservations.GEN_AI_MODEL, target.model())
			.lowCardinalityKeyValue(LlmObservations.REGION, target.region())
			.lowCardinalityKeyValue(LlmObservations.RETRY, Boolean.toString(attempt.targetAttempt() > 1))
			.start();
		this.attempt = observation;
		return new AttemptScope() {
			@Override
			public Opened open() {
				Observation.Scope scope = observation.openScope();
				return scope::close;
			}

			@Override
			public Context inReactor(Context context) {
				return context.put(LlmObservations.REACTOR_KEY, observation);
			}
		};
	}

	@Override
	public synchronized void onAttempt(String chain, Target target, Verdict verdict, long nanos) {
		stopAttempt(verdict);
	}

	@Override
	public synchronized void onSkipped(String chain, Target target, ChainStep.Skip why) {
		String reason = lower(why);
		this.failFast = reason;
		this.call.event(Observation.Event.of(LlmObservations.SKIPPED_EVENT + reason,
				"skipped " + target.name() + ": " + reason));
	}

	@Override
	public synchronized void onPoolWait(String chain, String pool, long nanos) {
		this.call.event(Observation.Event.of(LlmObservations.POOL_WAIT_EVENT,
				"waits " + Duration.ofNanos(nanos) + " for pool " + pool));
	}

	@Override
	public synchronized void onRetry(String chain, Target target, RetryResult result) {
		String name = lower(result);
		this.call
			.event(Observation.Event.of(LlmObservations.RETRY_EVENT + name, "retry " + target.name() + ": " + name));
	}

	@Override
	public synchronized void onServed(String chain, Target target, int position, long nanos) {
		this.outcome = "served";
		this.servedBy = target.name();
	}

	@Override
	public synchronized void onUnavailable(String chain, LlmUnavailableException exception, long nanos) {
		this.outcome = "unavailable";
	}

	@Override
	public synchronized void onDegraded(String chain, LlmUnavailableException unavailable, @Nullable Throwable failure,
			long nanos) {
		this.outcome = "degraded";
		this.servedBy = "degraded";
	}

	@Override
	public synchronized void onRejected(String chain, Target target, Verdict verdict, long nanos) {
		this.outcome = "rejected";
	}

	@Override
	public synchronized void ended(@Nullable Throwable error) {
		if (this.ended) {
			return;
		}
		this.ended = true;
		stopAttempt(null);
		String outcome = this.outcome;
		if (error instanceof CancellationException) {
			outcome = "cancelled";
		}
		else if (outcome == null || (error != null && "served".equals(outcome))) {
			// Served and then failed in the caller's own code, or failed before any
			// verdict: not the chain's doing.
			outcome = (error instanceof LlmRejectedException) ? "rejected"
					: (error instanceof LlmUnavailableException) ? "unavailable" : (error != null) ? "error" : "served";
		}
		if (error != null && !(error instanceof CancellationException)) {
			this.call.error(error);
		}
		this.call.lowCardinalityKeyValue(LlmObservations.OUTCOME, outcome)
			.lowCardinalityKeyValue(LlmObservations.SERVED_BY, this.servedBy)
			.lowCardinalityKeyValue(LlmObservations.FAIL_FAST, this.failFast)
			.highCardinalityKeyValue(LlmObservations.ATTEMPTS, Integer.toString(this.attempts))
			.stop();
	}

	/** Stop the attempt in flight with its verdict, or with none. */
	private void stopAttempt(@Nullable Verdict verdict) {
		Observation observation = this.attempt;
		if (observation == null) {
			return;
		}
		this.attempt = null;
		observation.lowCardinalityKeyValue(LlmObservations.VERDICT,
				(verdict != null) ? lower(verdict.outcome()) : NONE);
		if (verdict != null) {
			verdict.waitHint()
				.ifPresent((hint) -> observation.highCardinalityKeyValue(LlmObservations.WAIT_HINT, hint.toString()));
			verdict.errorType().ifPresent((type) -> observation.highCardinalityKeyValue("error.type", type));
		}
		observation.stop();
	}

	private static String lower(Enum<?> value) {
		return value.name().toLowerCase(Locale.ROOT);
	}

}
