package io.github.llmresilience.extract;

import io.github.llmresilience.classify.ProviderResponse;

/**
 * Thrown by a call function to have an answer classified that its client did not treat as
 * an error, such as a 200 whose body is a refusal or a proxy's error envelope.
 */
public class ProviderAnswerException extends RuntimeException {

	private final transient ProviderResponse response;

	public ProviderAnswerException(ProviderResponse response) {
		super("Provider answered " + response, null, false, false);
		this.response = response;
	}

	public ProviderResponse response() {
		return this.response;
	}

}
