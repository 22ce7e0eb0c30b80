/**
 * Fleet mode: one breaker per failure domain for the whole fleet, gates, parks, locks and
 * operator commands shared through a store (Redis), never on a call's path.
 */
@NullMarked
package io.github.llmresilience.fleet;

import org.jspecify.annotations.NullMarked;
