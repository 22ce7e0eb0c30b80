/**
 * Backoff and the retry budget: mechanisms, not API.
 */
@NullMarked
package io.github.llmresilience.retry.internal;

import org.jspecify.annotations.NullMarked;
