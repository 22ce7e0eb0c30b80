/**
 * Quota scopes and accounts: their settings. The gates and accounts are in
 * {@code throttle.internal}.
 * <p>
 * Engine-facing (public for the engine and the auto-configuration, not an API for
 * applications): {@link Accounts}, {@link ThrottleGate}.
 */
@NullMarked
package io.github.llmresilience.throttle;

import org.jspecify.annotations.NullMarked;
