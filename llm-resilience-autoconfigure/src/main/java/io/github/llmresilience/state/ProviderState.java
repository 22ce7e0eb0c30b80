package io.github.llmresilience.state;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * One provider (every target with its provider id) at one instant.
 *
 * @param provider the provider id, such as {@code anthropic}
 * @param overloaded whether an answer that spoke for the provider's whole fleet (a 529,
 * an {@code overloaded_error}, "the service is overloaded") marked it: chains try its
 * targets after every other provider's until {@code overloadedUntil}
 * @param overloadedUntil when the mark ends, or {@code null} when not marked
 * @param reason why it was marked, or {@code null} when not marked
 */
public record ProviderState(String provider, boolean overloaded, @Nullable Instant overloadedUntil,
		@Nullable String reason) {

}
