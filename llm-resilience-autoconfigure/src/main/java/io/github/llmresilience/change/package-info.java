/**
 * State changes: what changed, when and until when, and the listeners told about each
 * one.
 * <p>
 * Engine-facing (public for the engine and the auto-configuration, not an API for
 * applications): {@link RecentStateChanges}, {@link StateChanges}.
 */
@NullMarked
package io.github.llmresilience.change;

import org.jspecify.annotations.NullMarked;
