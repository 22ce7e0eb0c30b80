package io.github.llmresilience.pool;

import java.time.Duration;

import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.TokensInheritanceStrategy;
import org.jspecify.annotations.Nullable;

/**
 * A scope's supply in Bucket4j buckets: one of requests and (when the token capacity is
 * known) one of tokens, each holding a minute of the capacity and refilling it greedily
 * (continuously) over the minute, as a provider's limit does.
 */
final class BucketSupply implements ScopeSupply {

	private static final double NANOS_PER_MINUTE = 60e9;

	private final @Nullable Bucket requests;

	private final @Nullable Bucket tokens;

	private volatile Capacity capacity;

	BucketSupply(BucketSource buckets, String key, Capacity capacity) {
		this.capacity = capacity;
		this.requests = (capacity.requestsPerMinute() > 0)
				? buckets.bucket(key + "/requests", perMinute(capacity.requestsPerMinute())) : null;
		this.tokens = (capacity.tokensPerMinute() > 0)
				? buckets.bucket(key + "/tokens", perMinute(capacity.tokensPerMinute())) : null;
	}

	static BucketConfiguration perMinute(long capacity) {
		return BucketConfiguration.builder()
			.addLimit(Bandwidth.builder().capacity(capacity).refillGreedy(capacity, Duration.ofMinutes(1)).build())
			.build();
	}

	@Override
	public boolean tryTake(long requests, long tokens) {
		Bucket tokenBucket = this.tokens;
		boolean tokensTaken = tokenBucket != null && tokens > 0;
		if (tokensTaken && !tokenBucket.tryConsume(tokens)) {
			return false;
		}
		if (this.requests != null && requests > 0 && !this.requests.tryConsume(requests)) {
			if (tokensTaken) {
				tokenBucket.addTokens(tokens);
			}
			return false;
		}
		return true;
	}

	@Override
	public void takeAnyway(long requests, long tokens) {
		Capacity capacity = this.capacity;
		// A debt beyond a minute of capacity cannot be reserved in a bucket (and means a
		// usage figure no provider states): a minute is what later calls wait out.
		if (this.requests != null && requests > 0) {
			this.requests.consumeIgnoringRateLimits(Math.min(requests, capacity.requestsPerMinute()));
		}
		if (this.tokens != null && tokens > 0) {
			this.tokens.consumeIgnoringRateLimits(Math.min(tokens, capacity.tokensPerMinute()));
		}
	}

	@Override
	public void giveBack(long requests, long tokens) {
		if (this.requests != null && requests > 0) {
			this.requests.addTokens(requests);
		}
		if (this.tokens != null && tokens > 0) {
			this.tokens.addTokens(tokens);
		}
	}

	@Override
	public long nanosUntil(long requests, long tokens) {
		Capacity capacity = this.capacity;
		long wait = 0;
		if (this.requests != null && requests > 0) {
			wait = refill(requests - this.requests.getAvailableTokens(), capacity.requestsPerMinute());
		}
		if (this.tokens != null && tokens > 0) {
			wait = Math.max(wait, refill(tokens - this.tokens.getAvailableTokens(), capacity.tokensPerMinute()));
		}
		return wait;
	}

	/**
	 * How long the bucket takes to refill what is missing, at its capacity a minute
	 * (beyond its size too: a call deep in a line waits for that much refill).
	 */
	private static long refill(long missing, long perMinute) {
		if (missing <= 0) {
			return 0;
		}
		double nanos = Math.ceil(missing * NANOS_PER_MINUTE / perMinute);
		return (nanos >= Long.MAX_VALUE) ? Long.MAX_VALUE : (long) nanos;
	}

	@Override
	public long requests() {
		return (this.requests != null) ? this.requests.getAvailableTokens() : 0;
	}

	@Override
	public long tokens() {
		return (this.tokens != null) ? this.tokens.getAvailableTokens() : 0;
	}

	@Override
	public void resize(Capacity whole, int pods) {
		Capacity capacity = Capacity.partOf(whole, pods);
		if (this.requests != null && capacity.requestsPerMinute() > 0) {
			this.requests.replaceConfiguration(perMinute(capacity.requestsPerMinute()),
					TokensInheritanceStrategy.PROPORTIONALLY);
		}
		if (this.tokens != null && capacity.tokensPerMinute() > 0) {
			this.tokens.replaceConfiguration(perMinute(capacity.tokensPerMinute()),
					TokensInheritanceStrategy.PROPORTIONALLY);
		}
		this.capacity = capacity;
	}

}
