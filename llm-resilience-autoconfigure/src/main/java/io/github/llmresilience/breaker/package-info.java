/**
 * The breaker of a failure domain: its settings and the breakers themselves (Resilience4j
 * underneath).
 * <p>
 * Engine-facing (public for the engine and the auto-configuration, not an API for
 * applications): {@link Breaker}, {@link Breakers}, {@link SharedOutcomes},
 * {@link TrialProbe}.
 */
@NullMarked
package io.github.llmresilience.breaker;

import org.jspecify.annotations.NullMarked;
