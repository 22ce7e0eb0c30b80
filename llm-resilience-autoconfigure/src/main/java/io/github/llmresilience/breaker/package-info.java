/**
 * The breaker of a failure domain: its settings. The breakers themselves are in
 * {@code breaker.internal}.
 */
@NullMarked
package io.github.llmresilience.breaker;

import org.jspecify.annotations.NullMarked;
