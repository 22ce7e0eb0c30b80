package io.github.llmresilience.execute;

/**
 * Answers a call without any model when no target of its chain can serve: a cached
 * answer, retrieval without generation, an honest fixed message. A degraded answer beats
 * an error for a person waiting on a page; a job worker would rather requeue on
 * {@link LlmUnavailableException#retryAfter()}, so a fallback is chosen per call
 * ({@code execute}, {@code stream} and {@code call} take one) or per adapter (the Spring
 * AI chat model's {@code llm.resilience.fallbacks.<chain>}).
 *
 * <p>
 * The engine asks it only where the call would otherwise end with
 * {@link LlmUnavailableException}: never for {@link LlmRejectedException} (the caller's
 * own bad request, or a refusal, reaches the caller unchanged), never for the caller's
 * own exception, and never after a stream emitted its first element. It touches no
 * breaker, gate or account. An exception it throws reaches the caller with the
 * {@link LlmUnavailableException} added as suppressed; returning {@code null} counts as
 * such a failure.
 *
 * <p>
 * The fallback builds the caller's answer type, so it is where the answer says it is
 * degraded: set {@link #SERVED_BY} where the type names who served it, or a flag of its
 * own (the Spring AI chat model adds {@code llm-resilience.degraded=true} to the
 * response's metadata). Reactive calls ask it on a worker thread
 * ({@code Schedulers.boundedElastic()}), so it may block briefly (a cache, a vector
 * store); blocking calls ask it on the calling thread.
 *
 * @param <T> the call's answer type (for a stream, the type of one piece: a degraded
 * stream is that one piece)
 */
@FunctionalInterface
public interface LlmFallback<T> {

	/** What a degraded answer names as the one that served it. */
	String SERVED_BY = "degraded";

	/**
	 * The degraded answer.
	 * @param degradation the chain and why none of its targets could serve
	 * @return the answer, never {@code null}
	 * @throws Exception when no degraded answer can be given either
	 */
	T answer(Degradation degradation) throws Exception;

}
