/**
 * Quota pools (traffic classes): how each quota scope's capacity is shared between
 * interactive, background and evaluation calls, and how long each may wait for a rate
 * limit to clear, and the partition itself.
 * <p>
 * Engine-facing (public for the engine and the auto-configuration, not an API for
 * applications): {@link BucketSource}, {@link Grant}, {@link Pools}, {@link ReleasePace},
 * {@link ScopePartition}, {@link ScopeSupply}, {@link SupplySource}, {@link LeaseStore},
 * {@link LeasedSupplies}, {@link LeasedSupply}.
 */
@NullMarked
package io.github.llmresilience.pool;

import org.jspecify.annotations.NullMarked;
