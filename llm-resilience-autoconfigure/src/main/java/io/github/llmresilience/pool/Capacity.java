package io.github.llmresilience.pool;

/**
 * What a quota scope may serve per minute, as the provider grants it. Zero in a dimension
 * means not known: that dimension is not partitioned.
 *
 * @param requestsPerMinute requests a minute; zero or more
 * @param tokensPerMinute tokens (input and output) a minute; zero or more
 */
public record Capacity(long requestsPerMinute, long tokensPerMinute) {

	/** Nothing known. */
	public static final Capacity UNKNOWN = new Capacity(0, 0);

	public Capacity {
		if (requestsPerMinute < 0) {
			throw new IllegalArgumentException("requestsPerMinute must be zero or more, was " + requestsPerMinute);
		}
		if (tokensPerMinute < 0) {
			throw new IllegalArgumentException("tokensPerMinute must be zero or more, was " + tokensPerMinute);
		}
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
