/**
 * Budgeted first-token hedging: when a stream's first element is late (past its failure
 * domain's measured 95th percentile time to first token, or a configured delay), the same
 * request goes to a target of another failure domain, and the first element to come wins.
 * Its settings, the delay's arithmetic and the budget that caps hedges at a share of
 * calls; the engine races the two walks.
 * <p>
 * Engine-facing (public for the engine and the auto-configuration, not an API for
 * applications): {@link HedgingSettings}, {@link Hedges}.
 */
@NullMarked
package io.github.llmresilience.hedge;

import org.jspecify.annotations.NullMarked;
