package io.github.llmresilience.pool;

import io.github.llmresilience.settings.InvalidSettingException;

/**
 * What a quota scope may serve per minute, as the provider grants it. Zero in a dimension
 * means not known: that dimension is not partitioned.
 *
 * @param requestsPerMinute requests a minute; zero to {@link #MAX_PER_MINUTE}
 * @param tokensPerMinute tokens (input and output) a minute; zero to
 * {@link #MAX_PER_MINUTE}
 */
public record Capacity(long requestsPerMinute, long tokensPerMinute) {

	/** Nothing known. */
	public static final Capacity UNKNOWN = new Capacity(0, 0);

	/**
	 * The most a dimension may hold: what a pool's bucket refills in a minute at most.
	 * Bucket4j refills at most one token a nanosecond (a faster refill fails to build),
	 * so a minute's bucket holds at most 60 billion; no provider grants near as much.
	 */
	public static final long MAX_PER_MINUTE = 60_000_000_000L;

	public Capacity {
		if (requestsPerMinute < 0 || requestsPerMinute > MAX_PER_MINUTE) {
			throw new InvalidSettingException("requestsPerMinute", "must be zero or more and at most " + MAX_PER_MINUTE,
					requestsPerMinute);
		}
		if (tokensPerMinute < 0 || tokensPerMinute > MAX_PER_MINUTE) {
			throw new InvalidSettingException("tokensPerMinute", "must be zero or more and at most " + MAX_PER_MINUTE,
					tokensPerMinute);
		}
	}

	/**
	 * A dimension's value as a provider may state it (up to 10^12), bounded to what a
	 * bucket holds.
	 */
	public static long bounded(long perMinute) {
		return Math.max(0, Math.min(perMinute, MAX_PER_MINUTE));
	}

	/**
	 * One pod's equal part of a capacity the fleet shares, rounded down (the fleet
	 * together never exceeds it), at least one in each known dimension.
	 */
	public static Capacity partOf(Capacity capacity, int pods) {
		if (pods <= 1) {
			return capacity;
		}
		return new Capacity(perPod(capacity.requestsPerMinute(), pods), perPod(capacity.tokensPerMinute(), pods));
	}

	private static long perPod(long perMinute, int pods) {
		return (perMinute > 0) ? Math.max(1, perMinute / pods) : 0;
	}

	public boolean isKnown() {
		return this.requestsPerMinute > 0 || this.tokensPerMinute > 0;
	}

	/**
	 * This capacity, with each dimension the other one knows and this one does not taken
	 * from it.
	 */
	public Capacity or(Capacity other) {
		return new Capacity((this.requestsPerMinute > 0) ? this.requestsPerMinute : other.requestsPerMinute,
				(this.tokensPerMinute > 0) ? this.tokensPerMinute : other.tokensPerMinute);
	}

	@Override
	public String toString() {
		String requests = (this.requestsPerMinute > 0) ? this.requestsPerMinute + " requests/min" : null;
		String tokens = (this.tokensPerMinute > 0) ? this.tokensPerMinute + " tokens/min" : null;
		if (requests != null && tokens != null) {
			return requests + ", " + tokens;
		}
		return (requests != null) ? requests : (tokens != null) ? tokens : "not known";
	}

}
