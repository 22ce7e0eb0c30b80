/**
 * Same-target retries: their settings, the backoff and the retry budget.
 * <p>
 * Engine-facing (public for the engine and the auto-configuration, not an API for
 * applications): {@link Backoff}, {@link RetryBudget}.
 */
@NullMarked
package io.github.llmresilience.retry;

import org.jspecify.annotations.NullMarked;
