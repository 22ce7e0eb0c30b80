package io.github.llmresilience.pool;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.llmresilience.settings.InvalidSettingException;

/**
 * How calls of each traffic class share a quota scope ({@code account/model}), and how
 * long they wait for it. A component out of its range fails construction.
 *
 * @param enabled whether each scope's capacity is partitioned by the pools' shares; off,
 * pools still name how long a call may wait for a rate limit to clear
 * @param pools the pools, one of them {@code interactive}; their shares add up to at most
 * 100
 * @param capacities the capacity of quota scopes, by scope key ({@code account/model}); a
 * scope not listed learns its capacity from the provider's headers, when {@code learn}
 * allows
 * @param learn whether a scope's capacity is learned from the rate-limit headers of
 * successful answers ({@code x-ratelimit-limit-requests},
 * {@code anthropic-ratelimit-requests-limit} and their token variants); a configured
 * capacity wins over a learned one
 * @param learnedCapacityFloor the least a learned capacity may state in each dimension:
 * headers that state less (one or two requests a minute would starve the service) are not
 * believed, and the dimension stays as it was; zero in a dimension believes any value. A
 * configured capacity is taken as it is.
 */
public record PartitionSettings(boolean enabled, List<PoolSettings> pools, Map<String, Capacity> capacities,
		boolean learn, Capacity learnedCapacityFloor) {

	/** The fewest requests a minute a learned capacity may state by default. */
	public static final long DEFAULT_LEARNED_REQUESTS_FLOOR = 10;

	/** The fewest tokens a minute a learned capacity may state by default. */
	public static final long DEFAULT_LEARNED_TOKENS_FLOOR = 1000;

	/** The default floor of a learned capacity: 10 requests, 1000 tokens a minute. */
	public static final Capacity DEFAULT_LEARNED_CAPACITY_FLOOR = new Capacity(DEFAULT_LEARNED_REQUESTS_FLOOR,
			DEFAULT_LEARNED_TOKENS_FLOOR);

	/** With the default floor of a learned capacity. */
	public PartitionSettings(boolean enabled, List<PoolSettings> pools, Map<String, Capacity> capacities,
			boolean learn) {
		this(enabled, pools, capacities, learn, DEFAULT_LEARNED_CAPACITY_FLOOR);
	}

	public PartitionSettings {
		if (learnedCapacityFloor == null) {
			throw new InvalidSettingException("learnedCapacityFloor", "must be set", null);
		}
		pools = List.copyOf(pools);
		capacities = Collections.unmodifiableMap(new LinkedHashMap<>(capacities));
		int total = 0;
		boolean interactive = false;
		List<String> names = new ArrayList<>();
		for (PoolSettings pool : pools) {
			if (names.contains(pool.name())) {
				throw new InvalidSettingException("pools", "must have distinct names", "'" + pool.name() + "' twice");
			}
			names.add(pool.name());
			total += pool.share();
			interactive |= pool.name().equals(PoolSettings.INTERACTIVE);
		}
		if (!interactive) {
			throw new InvalidSettingException("pools",
					"must include '" + PoolSettings.INTERACTIVE + "', the pool of a call that names none", names);
		}
		if (total > 100) {
			throw new InvalidSettingException("pools", "must have shares adding up to at most 100 (percent)", total);
		}
	}

	/** Off: the three default pools, only their waits in force. */
	public static PartitionSettings defaults() {
		return new PartitionSettings(false, defaultPools(), Map.of(), true);
	}

	/** Interactive 70 % (waits 2 s), background 20 % (120 s), evaluation 10 % (600 s). */
	public static List<PoolSettings> defaultPools() {
		return List.of(PoolSettings.interactive(), PoolSettings.background(), PoolSettings.evaluation());
	}

	/** The same pools and capacities, partitioning on. */
	public PartitionSettings on() {
		return new PartitionSettings(true, this.pools, this.capacities, this.learn, this.learnedCapacityFloor);
	}

	/**
	 * What of a capacity stated by a provider's headers is believed: each dimension below
	 * {@link #learnedCapacityFloor()} is dropped (not known).
	 */
	public Capacity believable(Capacity stated) {
		long requests = stated.requestsPerMinute();
		long tokens = stated.tokensPerMinute();
		return new Capacity((requests >= this.learnedCapacityFloor.requestsPerMinute()) ? requests : 0,
				(tokens >= this.learnedCapacityFloor.tokensPerMinute()) ? tokens : 0);
	}

}
