package io.github.llmresilience.sample.simulator;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One vendor's wire format: how it reads a chat request and how it answers, fails and
 * streams. Error bodies are the vendor's real ones, as collected (with their sources) in
 * {@code llm-resilience-autoconfigure/src/test/resources/fixtures/vendor-errors.json}.
 */
interface VendorSimulation {

	/**
	 * @throws RejectedRequest when the body is not a chat request the vendor accepts
	 */
	Prompt read(String body);

	Reply answer(Prompt prompt, String text, Instant now);

	/** A safety refusal: both vendors send it inside a 200. */
	Reply refusal(Prompt prompt, Instant now);

	/** The provider is down. */
	Reply outage();

	/** The provider sheds load. */
	Reply overloaded();

	/** One request failed on the provider's side. */
	Reply serverError();

	Reply rateLimited(Prompt prompt, int retryAfterSeconds, Instant now);

	/**
	 * The headers in which the vendor states its request rate limit, on every answer.
	 * @param limit requests a minute
	 * @param remaining requests left now
	 * @param reset when the bucket is full again, from now
	 */
	Map<String, String> requestLimitHeaders(long limit, long remaining, Duration reset, Instant now);

	Reply quotaExhausted(Instant now);

	Reply contextTooLong(Prompt prompt);

	/**
	 * Every event of a streamed answer, the last one included.
	 * @param refusal whether the stream ends in a safety refusal instead of an answer
	 */
	List<SseFrame> stream(Prompt prompt, List<String> tokens, boolean refusal, Instant now);

}
