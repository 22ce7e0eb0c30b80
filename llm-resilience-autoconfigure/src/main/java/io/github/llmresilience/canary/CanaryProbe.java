package io.github.llmresilience.canary;

import reactor.core.publisher.Mono;

/**
 * Sends a failure domain's canary itself, in place of the built-in prompt sender: for a
 * provider the library does not speak, an SDK, or a request of your own (a known
 * question, a tool call). Its answer's text is judged as configured, and the outcome is
 * the breaker's half-open trial.
 *
 * <p>
 * The engine calls it off the call path, on a thread where blocking is allowed, and cuts
 * the answer at the canary's timeout. An error, an empty Mono, or an exception thrown
 * here is a failed trial; nothing a probe does can keep the breaker from its next trial.
 *
 * <pre class="code">
 * CanaryProbe probe = (request) -&gt; Mono.fromCallable(() -&gt; myClient.ask(
 *     request.target().model(), "Reply with the word pong"));
 * </pre>
 */
@FunctionalInterface
public interface CanaryProbe {

	/**
	 * Send the canary.
	 * @param request the target to ask, the configured prompt and the time allowed
	 * @return the answer's text, as the judgement reads it
	 */
	Mono<String> probe(CanaryRequest request);

}
