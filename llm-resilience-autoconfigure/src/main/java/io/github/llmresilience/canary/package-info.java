/**
 * Canaries: a failure domain's own request, sent off the call path, as its breaker's
 * half-open trial, and how its answer is judged.
 * <p>
 * Engine-facing (public for the engine and the auto-configuration, not an API for
 * applications): {@link CanaryTarget}, {@link CanaryTrial}, {@link PromptProbe}.
 */
@NullMarked
package io.github.llmresilience.canary;

import org.jspecify.annotations.NullMarked;
