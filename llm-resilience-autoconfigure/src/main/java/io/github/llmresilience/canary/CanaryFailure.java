package io.github.llmresilience.canary;

/**
 * Why a canary's answer failed, in words safe for an event: a status, a malformed body,
 * never the answer's text, a header or a key.
 */
final class CanaryFailure extends RuntimeException {

	CanaryFailure(String reason) {
		super(reason, null, false, false);
	}

}
