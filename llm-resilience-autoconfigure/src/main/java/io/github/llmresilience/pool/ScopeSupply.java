package io.github.llmresilience.pool;

/**
 * Where one quota scope's capacity comes from on this pod: a local bucket refilling at
 * the scope's capacity (one pod, or a fleet pod that lost its store and keeps its equal
 * part), or slices of the fleet's capacity leased through a store. The scope's partition
 * between pools draws on it: every request the pod sends to the scope is taken from it
 * first, so the pod never sends more than its supply holds.
 * <p>
 * Implementations are thread safe; {@link #tryTake} takes both dimensions or neither. A
 * dimension whose capacity is not known (zero) is never short.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public interface ScopeSupply {

	/**
	 * Take requests and tokens now when the supply holds them all.
	 * @return whether they were taken (nothing is taken otherwise)
	 */
	boolean tryTake(long requests, long tokens);

	/**
	 * Take them whether or not the supply holds them: it goes into debt, which later
	 * takes wait out (a retry that is sent anyway, tokens an answer used beyond its
	 * estimate).
	 */
	void takeAnyway(long requests, long tokens);

	/**
	 * Give back what was taken and not sent, or tokens an answer did not use; the supply
	 * never holds more than its capacity.
	 */
	void giveBack(long requests, long tokens);

	/**
	 * How long until {@link #tryTake} of this much can succeed, were nothing else taken
	 * meanwhile; zero when now, {@link Long#MAX_VALUE} when it cannot be told (more than
	 * the supply can hold, or a lease that is not granted yet).
	 */
	long nanosUntil(long requests, long tokens);

	/**
	 * Calls of a pool that may wait only this long stand in the scope's line, and serving
	 * them takes this many requests (theirs and those of the calls ahead of them). A
	 * supply shared with other pods may ask for them ahead of what can wait; by default
	 * nothing.
	 * @param requests the requests that serving them takes
	 * @param patienceNanos the pool's {@code max-wait}
	 */
	default void pressing(long requests, long patienceNanos) {
	}

	/** Requests held now; negative when in debt. */
	long requests();

	/** Tokens held now; negative when in debt, zero when the dimension is not known. */
	long tokens();

	/**
	 * The scope's capacity, or the number of pods sharing it, changed (in the dimensions
	 * the supply was made with): hold as much of the new capacity as it held of the old,
	 * in proportion.
	 * @param capacity the scope's whole capacity
	 * @param pods the pods sharing it (1 outside fleet mode)
	 */
	void resize(Capacity capacity, int pods);

}
