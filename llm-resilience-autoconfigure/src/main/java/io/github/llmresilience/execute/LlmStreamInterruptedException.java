package io.github.llmresilience.execute;

import io.github.llmresilience.classify.Verdict;

/**
 * A stream failed after its first element reached the subscriber. It is recorded as a
 * breaker failure ({@code STREAM_INTERRUPTED}) and is never restarted on another target:
 * the subscriber has already seen part of an answer, and only it can decide whether to
 * ask again.
 */
public class LlmStreamInterruptedException extends RuntimeException {

	private final String chain;

	private final String target;

	private final long elementsReceived;

	private final transient Verdict verdict;

	private final transient Verdict causeVerdict;

	public LlmStreamInterruptedException(String chain, String target, long elementsReceived, Verdict verdict,
			Verdict causeVerdict, Throwable cause) {
		super("Stream from target '" + target + "' of chain '" + chain + "' was interrupted after " + elementsReceived
				+ " elements (" + causeVerdict + "); not restarted elsewhere, the subscriber has part of the answer",
				cause, true, false);
		this.chain = chain;
		this.target = target;
		this.elementsReceived = elementsReceived;
		this.verdict = verdict;
		this.causeVerdict = causeVerdict;
	}

	public String chain() {
		return this.chain;
	}

	public String target() {
		return this.target;
	}

	/** How many elements reached the subscriber before the failure. */
	public long elementsReceived() {
		return this.elementsReceived;
	}

	/** {@code STREAM_INTERRUPTED}, with the cause's wait hint and error type. */
	public Verdict verdict() {
		return this.verdict;
	}

	/**
	 * What the failure itself was classified as (a timeout, an overloaded event, ...).
	 */
	public Verdict causeVerdict() {
		return this.causeVerdict;
	}

}
