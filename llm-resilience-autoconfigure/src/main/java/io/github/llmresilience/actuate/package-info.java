/**
 * The actuator side: the {@code llmresilience} endpoint and the health contributor, built
 * on the state snapshot alone.
 */
@NullMarked
package io.github.llmresilience.actuate;

import org.jspecify.annotations.NullMarked;
