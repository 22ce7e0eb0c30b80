package org.springframework.ai.retry;

/**
 * Stands in for Spring AI's exception of the same name, which the extractor knows by
 * class name only; Spring AI is not a dependency of this module.
 */
public class TransientAiException extends RuntimeException {

	public TransientAiException(String message) {
		super(message);
	}

}
