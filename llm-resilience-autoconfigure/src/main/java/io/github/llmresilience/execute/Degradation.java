package io.github.llmresilience.execute;

import java.time.Instant;
import java.util.Objects;

/**
 * Why a call gets a degraded answer: what its {@link LlmFallback} is told.
 *
 * @param chain the chain no target of which could serve
 * @param unavailable every attempt's verdict and every skip, and the earliest moment a
 * target may serve again
 */
public record Degradation(String chain, LlmUnavailableException unavailable) {

	public Degradation {
		Objects.requireNonNull(chain, "chain");
		Objects.requireNonNull(unavailable, "unavailable");
	}

	/**
	 * The earliest moment a target of the chain may serve again: worth telling the reader
	 * of a degraded answer when to ask again.
	 */
	public Instant retryAfter() {
		return this.unavailable.retryAfter();
	}

}
