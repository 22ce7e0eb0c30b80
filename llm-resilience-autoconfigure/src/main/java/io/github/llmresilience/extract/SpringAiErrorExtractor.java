package io.github.llmresilience.extract;

import java.util.List;
import java.util.Map;

import io.github.llmresilience.classify.ProviderResponse;
import org.jspecify.annotations.Nullable;

/**
 * Reads Spring AI's {@code TransientAiException} and {@code NonTransientAiException},
 * whose message carries the status and body as {@code "429 - {...}"} (or {@code "HTTP 429
 * - {...}"}). Known by class name, so Spring AI need not be on the classpath.
 */
public final class SpringAiErrorExtractor implements ErrorExtractor {

	private static final String PACKAGE = "org.springframework.ai.retry.";

	@Override
	public @Nullable ProviderResponse extract(Throwable error) {
		String name = error.getClass().getName();
		if (!name.equals(PACKAGE + "TransientAiException") && !name.equals(PACKAGE + "NonTransientAiException")) {
			return null;
		}
		String message = error.getMessage();
		if (message == null) {
			return null;
		}
		String text = message.startsWith("HTTP ") ? message.substring(5) : message;
		if (text.length() < 3) {
			return null;
		}
		int status;
		try {
			status = Integer.parseInt(text.substring(0, 3));
		}
		catch (NumberFormatException ex) {
			return null;
		}
		int separator = text.indexOf(" - ");
		String body = (separator >= 0) ? text.substring(separator + 3) : "";
		return ProviderResponse.of(status, Map.of("content-type", List.of("application/json")), body);
	}

}
