/**
 * Quota scopes and accounts: their settings. The gates and accounts are in
 * {@code throttle.internal}.
 */
@NullMarked
package io.github.llmresilience.throttle;

import org.jspecify.annotations.NullMarked;
