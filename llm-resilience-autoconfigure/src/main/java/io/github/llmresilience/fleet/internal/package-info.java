/**
 * The fleet's sync loop and the per-domain links between local breakers and the fleet:
 * mechanisms, not API.
 */
@NullMarked
package io.github.llmresilience.fleet.internal;

import org.jspecify.annotations.NullMarked;
