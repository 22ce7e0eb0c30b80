/**
 * Timeouts that are measured, not guessed: their settings.
 * <p>
 * Engine-facing (public for the engine and the auto-configuration, not an API for
 * applications): {@link CoalescingTimer}, {@link LatencyRecord}, {@link MeasuredTimeout},
 * {@link TimeLimits}.
 */
@NullMarked
package io.github.llmresilience.timeout;

import org.jspecify.annotations.NullMarked;
