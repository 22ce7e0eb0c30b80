/**
 * Breakers per failure domain on Resilience4j: mechanisms, not API.
 */
@NullMarked
package io.github.llmresilience.breaker.internal;

import org.jspecify.annotations.NullMarked;
