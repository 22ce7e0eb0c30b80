package io.github.llmresilience.pool;

import java.util.concurrent.CompletableFuture;

/**
 * Where a fleet keeps each quota scope's shared bucket, from which pods lease slices
 * (Redis in this library: {@code io.github.llmresilience.data.redis.RedisLeaseStore}). A
 * pod calls it in the background only, never on a call's path.
 * <p>
 * The store keeps, per scope, a bucket of the scope's capacity that refills continuously
 * over a minute on the store's own clock, and every live lease with its end (the time the
 * store granted it plus the period, on the store's clock). What the bucket holds and what
 * live leases were granted together never exceed the capacity: the bucket refills only
 * into room that no live lease holds, so a lease that a pod never returns (the pod died)
 * holds its room until it ends, and is then lost, never counted twice.
 * <p>
 * One exchange is one round trip: it ends the holder's previous lease (crediting back
 * what the holder says it did not use, at most what that lease granted, if it is still
 * live and is the lease just before this one), debits what the holder spent outside
 * leases (its equal part while the store was away), and grants a new lease of at most
 * what was asked and what the bucket holds. Exchanges are numbered per holder and the
 * store applies each once: the same number again is answered with the same lease and
 * changes nothing; a lower number is stale and grants nothing. A holder that gave an
 * exchange up sends its next under a new number, so a late exchange can cost the fleet
 * capacity, never add to it.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
@FunctionalInterface
public interface LeaseStore {

	/**
	 * Send one exchange.
	 * @return the lease granted; completed exceptionally when the store cannot be reached
	 * or refuses it
	 */
	CompletableFuture<Lease> exchange(Exchange exchange);

	/**
	 * One exchange of a holder (a pod's run) for one scope.
	 *
	 * @param scope the quota scope ({@code account/model})
	 * @param holder the pod's id and this run's incarnation: unique to this run
	 * @param sequence the exchange's number, growing with every exchange of the holder
	 * for the scope
	 * @param capacity the scope's whole capacity, per minute (a dimension of zero is not
	 * leased)
	 * @param periodMillis how long the new lease lasts
	 * @param returnedRequests requests of the previous lease not used
	 * @param returnedTokens tokens of the previous lease not used
	 * @param askedRequests requests asked for
	 * @param askedTokens tokens asked for
	 * @param debitRequests requests the holder sent outside leases, to take from the
	 * bucket
	 * @param debitTokens tokens the holder sent outside leases, to take from the bucket
	 * @param urgentRequests of the requests asked for, those that calls which cannot wait
	 * a period need (an interactive call's 2 s against 5 s leases): the store grants them
	 * from the whole bucket, and the rest only from what is above its reserve, so that a
	 * busy pod's background job does not take the refill another pod's interactive calls
	 * wait for
	 */
	record Exchange(String scope, String holder, long sequence, Capacity capacity, long periodMillis,
			long returnedRequests, long returnedTokens, long askedRequests, long askedTokens, long debitRequests,
			long debitTokens, long urgentRequests) {
	}

	/**
	 * A lease granted.
	 *
	 * @param sequence the exchange it answers
	 * @param requests requests granted (zero or more)
	 * @param tokens tokens granted (zero or more)
	 * @param serverMillis the store's clock when it granted them
	 */
	record Lease(long sequence, long requests, long tokens, long serverMillis) {
	}

}
