package io.github.llmresilience.observation;

import java.util.Objects;

import io.github.llmresilience.execute.CallTrace;
import io.github.llmresilience.execute.CallTracing;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;
import reactor.util.context.ContextView;

/**
 * Each call's trace as Micrometer Observations: {@value #CALL} per call,
 * {@value #ATTEMPT} per attempt as its child. Keys are low-cardinality only where their
 * values come from configuration (chain, target, provider, model, region) or a closed set
 * (outcome, verdict, skip); never a prompt, an answer, a URL or a key. Provider and model
 * use the OpenTelemetry GenAI semantic conventions' names ({@value #GEN_AI_PROVIDER} and
 * {@value #GEN_AI_SYSTEM}, {@value #GEN_AI_MODEL}).
 */
public final class LlmObservations implements CallTracing {

	/** The observation of one call through a chain. */
	public static final String CALL = "llm.resilience.call";

	/** The observation of one attempt on a target, the call's child. */
	public static final String ATTEMPT = "llm.resilience.attempt";

	/** The chain (low cardinality: configuration). */
	public static final String CHAIN = "llm.resilience.chain";

	/**
	 * How the call ended: {@code served}, {@code unavailable}, {@code rejected},
	 * {@code degraded}, {@code error} (the caller's own), {@code cancelled}.
	 */
	public static final String OUTCOME = "llm.resilience.outcome";

	/** The target that served the call, {@code none} when none did. */
	public static final String SERVED_BY = "llm.resilience.served_by";

	/** The call's attempts (requests sent), high cardinality. */
	public static final String ATTEMPTS = "llm.resilience.attempts";

	/**
	 * Why the last target passed over without a request was (a {@code ChainStep.Skip} in
	 * lower case: {@code breaker_open}, {@code scope_gated}, {@code account_parked},
	 * ...), {@code none} when no target was.
	 */
	public static final String FAIL_FAST = "llm.resilience.fail_fast";

	/** The attempt's target (low cardinality: configuration). */
	public static final String TARGET = "llm.resilience.target";

	/** The target's provider, as OpenTelemetry's GenAI conventions name it. */
	public static final String GEN_AI_PROVIDER = "gen_ai.provider.name";

	/**
	 * The target's provider, as OpenTelemetry's GenAI conventions named it before
	 * {@value #GEN_AI_PROVIDER} and as Spring AI 2.0.1 names it on its own observation
	 * (the attempt's child): both, so that either name finds both.
	 */
	public static final String GEN_AI_SYSTEM = "gen_ai.system";

	/** The target's model, as OpenTelemetry's GenAI conventions name it. */
	public static final String GEN_AI_MODEL = "gen_ai.request.model";

	/** The target's region. */
	public static final String REGION = "llm.resilience.region";

	/**
	 * The attempt's verdict (an {@code Outcome} in lower case: {@code success},
	 * {@code availability}, {@code throttled}, {@code request}, ...), {@code none} when
	 * it ended without one (cancelled, or not the provider's answer).
	 */
	public static final String VERDICT = "llm.resilience.verdict";

	/** Whether the attempt is a retry of its target ({@code true}, {@code false}). */
	public static final String RETRY = "llm.resilience.retry";

	/**
	 * The wait the provider asked for, ISO-8601, high cardinality; absent without one.
	 */
	public static final String WAIT_HINT = "llm.resilience.wait_hint";

	/**
	 * The prefix of the call's events: {@code llm.resilience.skipped.breaker_open}, ....
	 */
	public static final String SKIPPED_EVENT = "llm.resilience.skipped.";

	/** The call's event for a wait for a pool's release. */
	public static final String POOL_WAIT_EVENT = "llm.resilience.pool_wait";

	/**
	 * The call's event for a retry decision: {@code llm.resilience.retry.attempted}, ....
	 */
	public static final String RETRY_EVENT = "llm.resilience.retry.";

	/**
	 * Where Micrometer keeps the current observation in a Reactor context
	 * ({@code ObservationThreadLocalAccessor.KEY}, spelt out: that class needs
	 * Micrometer's context-propagation library, which an application may not have).
	 */
	static final String REACTOR_KEY = "micrometer.observation";

	private final ObservationRegistry registry;

	public LlmObservations(ObservationRegistry registry) {
		this.registry = Objects.requireNonNull(registry, "registry");
	}

	@Override
	public @Nullable CallTrace start(String chain, ContextView reactor) {
		if (this.registry.isNoop()) {
			return null;
		}
		Object parent = reactor.getOrDefault(REACTOR_KEY, null);
		return new CallObservation(this.registry, chain,
				(parent instanceof Observation observation) ? observation : null);
	}

}
