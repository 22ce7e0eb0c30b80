package io.github.llmresilience.pool;

/**
 * Makes the supply of each quota scope on this pod: Bucket4j buckets refilling at the
 * pod's part of the scope's capacity ({@link #of(BucketSource)}), or leases from the
 * fleet.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
@FunctionalInterface
public interface SupplySource {

	/**
	 * The supply of a scope whose capacity became known.
	 * @param scope the scope's key ({@code account/model})
	 * @param capacity the scope's whole capacity
	 * @param pods the pods sharing it (1 outside fleet mode)
	 */
	ScopeSupply supply(String scope, Capacity capacity, int pods);

	/**
	 * Buckets from the source, each holding the pod's equal part of the scope's capacity
	 * (rounded down, at least one in a known dimension) and refilling it over a minute.
	 */
	static SupplySource of(BucketSource buckets) {
		return (scope, capacity, pods) -> new BucketSupply(buckets, scope, Capacity.partOf(capacity, pods));
	}

}
