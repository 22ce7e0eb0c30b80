/**
 * Fleet mode: one breaker per failure domain for the whole fleet, gates, parks, locks and
 * operator commands shared through a store (Redis), never on a call's path.
 * <p>
 * Engine-facing (public for the engine and the auto-configuration, not an API for
 * applications): {@link Fleet}, {@link FleetSync}.
 */
@NullMarked
package io.github.llmresilience.fleet;

import org.jspecify.annotations.NullMarked;
