package io.github.llmresilience.execute;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the engine books after a provider answered: the target's record (breaker, measured
 * timeout, account, spend), the pool draw (usage, learned capacity) and the release pace.
 * The call is served by then, and the provider has sent and billed the answer: none of
 * this may fail it. A step that throws is logged when it first fails for a target (then
 * only at debug), and the call goes on with the steps after it.
 */
final class AnswerBookkeeping {

	private static final Logger logger = LoggerFactory.getLogger(AnswerBookkeeping.class);

	/** One step of the bookkeeping. */
	enum Step {

		/** The breaker's success, the measured timeout, the account and the spend. */
		TARGET("recording the answer"),

		/** The tokens the answer used and the capacity its headers state. */
		POOLS("settling the pool draw"),

		/** The release pace of a call that waited for a gate. */
		PACE("settling the release pace");

		private final String description;

		Step(String description) {
			this.description = description;
		}

	}

	/** The steps that failed already, by step and target: each is logged once. */
	private final Map<String, Boolean> failing = new ConcurrentHashMap<>();

	/**
	 * A step threw after an answer of the target: log it the first time, and go on.
	 */
	void failed(Step step, TargetRuntime target, Throwable error) {
		if (this.failing.putIfAbsent(step.name() + "|" + target.name(), Boolean.TRUE) == null) {
			logger.warn(
					"llm-resilience {} after an answer of {} failed; the call was served, its bookkeeping is"
							+ " skipped (logged once per target, then at debug)",
					step.description, target.name(), error);
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("llm-resilience {} after an answer of {} failed", step.description, target.name(), error);
		}
	}

}
