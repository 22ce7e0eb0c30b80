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
	 * @param pods the pods sharing it (1 outside fleet mode): this pod draws on an equal
	 * part, {@code capacity / pods}
	 * @param requestsAvailable requests this pod may send to the scope now, whatever
	 * their pool (negative: in debt), or -1 when the dimension is not known
	 * @param tokensAvailable tokens it holds now, or -1 when not known
	 * @param pools each pool's share and its waiting calls, by pool
	 */
	public record ScopePools(Capacity capacity, int pods, long requestsAvailable, long tokensAvailable,
			Map<String, PoolShare> pools) {

	}

	/**
	 * One pool's part of a scope: what it is sure of when every pool asks at once (each
	 * pool draws on all of the scope while the others do not ask).
	 *
	 * @param requestsPerMinute its share of this pod's requests a minute
	 * @param tokensPerMinute its share of this pod's tokens a minute (0: not known)
	 * @param waiting its calls waiting for this scope
	 */
	public record PoolShare(long requestsPerMinute, long tokensPerMinute, int waiting) {

	}

}
