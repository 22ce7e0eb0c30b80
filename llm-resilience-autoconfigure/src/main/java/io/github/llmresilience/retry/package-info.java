/**
 * Same-target retries: their settings. Backoff and the retry budget are in
 * {@code retry.internal}.
 * <p>
 * Engine-facing (public for the engine and the auto-configuration, not an API for
 * applications): {@link Backoff}, {@link RetryBudget}.
 */
@NullMarked
package io.github.llmresilience.retry;

import org.jspecify.annotations.NullMarked;
