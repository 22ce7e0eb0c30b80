/**
 * Timeouts that are measured, not guessed: their settings.
 */
@NullMarked
package io.github.llmresilience.timeout;

import org.jspecify.annotations.NullMarked;
