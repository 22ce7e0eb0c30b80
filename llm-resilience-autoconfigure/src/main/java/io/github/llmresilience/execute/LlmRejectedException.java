package io.github.llmresilience.execute;

import io.github.llmresilience.classify.Verdict;

/**
 * The provider rejected the call for a reason that no retry or other target can fix: a
 * malformed request ({@code REQUEST}) or a safety refusal ({@code CONTENT_FILTER}). The
 * provider's exception is the cause.
 */
public class LlmRejectedException extends RuntimeException {

	private final String chain;

	private final String target;

	private final transient Verdict verdict;

	public LlmRejectedException(String chain, String target, Verdict verdict, Throwable cause) {
		super("Target '" + target + "' of chain '" + chain + "' rejected the call: " + verdict, cause, true, false);
		this.chain = chain;
		this.target = target;
		this.verdict = verdict;
	}

	public String chain() {
		return this.chain;
	}

	public String target() {
		return this.target;
	}

	public Verdict verdict() {
		return this.verdict;
	}

}
