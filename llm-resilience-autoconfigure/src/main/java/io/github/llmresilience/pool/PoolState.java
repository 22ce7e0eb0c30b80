package io.github.llmresilience.pool;

import java.util.Map;

/**
 * The quota pools as they are now: read-only.
 *
 * @param enabled whether scopes are partitioned
 * @param queued calls waiting now, by pool (for a rate limit to clear or a share to
 * refill)
 * @param scopes each quota scope's capacity and what each pool holds of it, by scope key;
 * only scopes whose capacity is known
 */
public record PoolState(boolean enabled, Map<String, Integer> queued, Map<String, ScopePools> scopes) {

	/**
	 * One quota scope.
	 *
	 * @param capacity its capacity
	 * @param pods the pods sharing it (1 outside fleet mode): this pod partitions an
	 * equal part, {@code capacity / pods}
	 * @param pools what each pool holds, by pool
	 */
	public record ScopePools(Capacity capacity, int pods, Map<String, PoolShare> pools) {

	}

	/**
	 * One pool's part of a scope.
	 *
	 * @param requestsPerMinute its share of the scope's requests a minute
	 * @param requestsAvailable requests it may send now without waiting (negative: in
	 * debt to waiting calls), or -1 when the dimension is not known
	 * @param tokensPerMinute its share of the scope's tokens a minute (0: not known)
	 * @param tokensAvailable tokens it holds now, or -1 when not known
	 * @param waiting its calls waiting for this scope
	 */
	public record PoolShare(long requestsPerMinute, long requestsAvailable, long tokensPerMinute, long tokensAvailable,
			int waiting) {

	}

}
