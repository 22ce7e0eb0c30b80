/**
 * Micrometer meters of calls, state changes and unclassified answers.
 */
@NullMarked
package io.github.llmresilience.metrics;

import org.jspecify.annotations.NullMarked;
