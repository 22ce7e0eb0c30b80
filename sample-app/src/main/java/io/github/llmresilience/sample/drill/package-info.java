/**
 * Drills: an outage or a throttle, measured.
 */
@NullMarked
package io.github.llmresilience.sample.drill;

import org.jspecify.annotations.NullMarked;
