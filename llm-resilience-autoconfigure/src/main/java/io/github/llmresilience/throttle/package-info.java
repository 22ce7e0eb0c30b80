/**
 * Quota scopes and accounts: their settings, the gates and the accounts.
 * <p>
 * Engine-facing (public for the engine and the auto-configuration, not an API for
 * applications): {@link Accounts}, {@link ThrottleGate}.
 */
@NullMarked
package io.github.llmresilience.throttle;

import org.jspecify.annotations.NullMarked;
