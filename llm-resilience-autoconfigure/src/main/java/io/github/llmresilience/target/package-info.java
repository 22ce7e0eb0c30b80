/**
 * Targets (a provider, model, region and account behind one name) and their keys.
 * <p>
 * Engine-facing (public for the engine and the auto-configuration, not an API for
 * applications): {@link TargetRegistry}.
 */
@NullMarked
package io.github.llmresilience.target;

import org.jspecify.annotations.NullMarked;
