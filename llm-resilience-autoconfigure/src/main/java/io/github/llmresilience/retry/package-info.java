/**
 * Same-target retries: their settings. Backoff and the retry budget are in
 * {@code retry.internal}.
 */
@NullMarked
package io.github.llmresilience.retry;

import org.jspecify.annotations.NullMarked;
