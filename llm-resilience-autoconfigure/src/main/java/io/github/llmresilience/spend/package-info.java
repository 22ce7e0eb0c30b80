/**
 * The spend trigger: what answers cost (tokens, or money at a target's price) per failure
 * domain, judged per window against the domain's own trailing median. Its settings and
 * prices, the windows and the judgement.
 * <p>
 * Engine-facing (public for the engine and the auto-configuration, not an API for
 * applications): {@link DomainSpend}, {@link Spend}.
 */
@NullMarked
package io.github.llmresilience.spend;

import org.jspecify.annotations.NullMarked;
