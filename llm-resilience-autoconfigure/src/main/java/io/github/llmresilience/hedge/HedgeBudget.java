package io.github.llmresilience.hedge;

import java.util.function.LongSupplier;

import io.github.llmresilience.retry.RetryBudget;

/**
 * Allows hedges up to a share of a chain's streams over a sliding window (at least a
 * minimum per window): the retry budget's mechanism (ten buckets, lock-free counts that
 * may overshoot by the threads deciding at the same instant), with its own counts, so
 * that hedges and retries are capped apart.
 * <p>
 * Engine-facing: public so that the engine can use it, not an API for applications.
 */
public final class HedgeBudget {

	private final RetryBudget window;

	HedgeBudget(LongSupplier nanoTime, HedgingSettings settings) {
		this.window = new RetryBudget(nanoTime, settings.budget(), settings.window(), settings.minimum());
	}

	/**
	 * Count one stream, at a time its caller has read.
	 * @param nowNanos the time on the engine's monotonic source
	 */
	public void onCall(long nowNanos) {
		this.window.onCall(nowNanos);
	}

	/**
	 * Take one hedge from the budget.
	 * @return {@code false} when the budget is spent
	 */
	public boolean tryHedge() {
		return this.window.tryRetry();
	}

	/** Streams seen and hedges taken in the current window: {streams, hedges}. */
	public long[] window() {
		return this.window.window();
	}

}
