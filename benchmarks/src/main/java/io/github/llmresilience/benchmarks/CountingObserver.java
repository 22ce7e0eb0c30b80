package io.github.llmresilience.benchmarks;

import java.util.concurrent.atomic.LongAdder;

import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.execute.CallObserver;
import io.github.llmresilience.execute.LlmUnavailableException;
import io.github.llmresilience.target.Target;

/**
 * The least any metrics binding does: one {@link LongAdder} increment per attempt, per
 * served call and per unavailable call (a Micrometer counter is a {@code LongAdder} too;
 * its timer costs more). Most rows use it so that they measure the executor itself; the
 * row {@code llmResilienceCallMicrometer} measures the starter's real Micrometer meters.
 */
public final class CountingObserver implements CallObserver {

	private final LongAdder attempts = new LongAdder();

	private final LongAdder served = new LongAdder();

	private final LongAdder unavailable = new LongAdder();

	/** The observer every benchmark uses: swap in the Micrometer one here. */
	public static CallObserver create() {
		return new CountingObserver();
	}

	@Override
	public void onAttempt(String chain, Target target, Verdict verdict, long nanos) {
		this.attempts.increment();
	}

	@Override
	public void onServed(String chain, Target target, int position, long nanos) {
		this.served.increment();
	}

	@Override
	public void onUnavailable(String chain, LlmUnavailableException exception, long nanos) {
		this.unavailable.increment();
	}

	public long attempts() {
		return this.attempts.sum();
	}

	public long served() {
		return this.served.sum();
	}

}
