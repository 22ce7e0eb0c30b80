package io.github.llmresilience.canary;

import java.time.Duration;
import java.util.Objects;

import io.github.llmresilience.target.Target;
import org.jspecify.annotations.Nullable;

/**
 * One canary to send: what a {@link CanaryProbe} is given.
 *
 * @param target the target to ask (its base URL, model and API key)
 * @param prompt the configured prompt, or {@code null} when the probe brings its own
 * @param maxTokens the longest answer to ask for
 * @param timeout the time the answer has; a later one is a failed trial
 */
public record CanaryRequest(Target target, @Nullable String prompt, int maxTokens, Duration timeout) {

	public CanaryRequest {
		Objects.requireNonNull(target, "target");
		Objects.requireNonNull(timeout, "timeout");
	}

}
