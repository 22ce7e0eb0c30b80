/**
 * What an answer cost: the tokens a provider reports it read and wrote.
 * <p>
 * Engine-facing (public for the engine and the auto-configuration, not an API for
 * applications): {@link UsageReader}.
 */
@NullMarked
package io.github.llmresilience.usage;

import org.jspecify.annotations.NullMarked;
