package io.github.llmresilience.canary;

import java.time.Instant;

import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.target.Target;
import org.jspecify.annotations.Nullable;

/**
 * One target of a failure domain as its canary sees it: whether its account and quota
 * scope let a request go, and what an answer does to them. The engine implements it over
 * the target's own guard, so a canary's answer is read by the classifier a call's is read
 * by (the user's rules first) and its verdict gates, parks or locks exactly as a call's
 * does: what a verdict does is written once, in the engine.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public interface CanaryTarget {

	/** The target the canary is sent to. */
	Target target();

	/**
	 * When the target's account and quota scope let a request go again: a moment not
	 * after now when they do (neither parked, locked nor gated).
	 */
	Instant heldUntil();

	/**
	 * What an exception of the sender says the provider answered, read by the engine's
	 * extractors.
	 * @return the answer, or {@code null} when no extractor knows the exception
	 */
	@Nullable ProviderResponse answer(Throwable error);

	/** The verdict on an answer, from the target's classifier. */
	Verdict classify(ProviderResponse answer);

	/**
	 * Do what the verdict does beyond the breaker, as for a call: gate the quota scope,
	 * park or lock the account, mark a provider-wide overload.
	 */
	void hold(Verdict verdict);

	/** The provider took the request (a 2xx): the account's key works. */
	void answered();

}
