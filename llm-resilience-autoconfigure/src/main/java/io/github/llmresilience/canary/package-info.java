/**
 * Canaries: a failure domain's own request, sent off the call path, as its breaker's
 * half-open trial, and how its answer is judged. The mechanism is in
 * {@code canary.internal}.
 */
@NullMarked
package io.github.llmresilience.canary;

import org.jspecify.annotations.NullMarked;
