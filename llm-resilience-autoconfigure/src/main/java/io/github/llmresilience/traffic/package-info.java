/**
 * What each target did second by second over the last minutes, kept in memory for the
 * status page.
 * <p>
 * Engine-facing (public for the engine and the auto-configuration, not an API for
 * applications): {@link TrafficHistory}.
 */
@NullMarked
package io.github.llmresilience.traffic;

import org.jspecify.annotations.NullMarked;
