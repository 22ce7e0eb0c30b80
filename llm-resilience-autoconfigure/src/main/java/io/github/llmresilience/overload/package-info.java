/**
 * Provider-wide overload: an answer that speaks for a provider's whole fleet marks the
 * provider for a while, and chains prefer other providers meanwhile. Its settings and the
 * marks.
 * <p>
 * Engine-facing (public for the engine and the auto-configuration, not an API for
 * applications): {@link ProviderOverloads}.
 */
@NullMarked
package io.github.llmresilience.overload;

import org.jspecify.annotations.NullMarked;
