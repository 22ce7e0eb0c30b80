package io.github.llmresilience.test;

import java.util.Random;
import java.util.function.Consumer;

/**
 * Property tests as plain JUnit: a number of tries, each with a {@link Random} derived
 * from one seed, and the seed in the failure so that a failing try can be run again with
 * {@code -Dllm.resilience.seed=<seed>}.
 */
public final class SeededTries {

	private SeededTries() {
	}

	/** Run {@code tries} tries of the property, each given its own random source. */
	public static void run(int tries, Consumer<Random> property) {
		long seed = Long.getLong("llm.resilience.seed", System.nanoTime());
		Random seeds = new Random(seed);
		for (int i = 0; i < tries; i++) {
			long trySeed = seeds.nextLong();
			try {
				property.accept(new Random(trySeed));
			}
			catch (AssertionError | RuntimeException ex) {
				throw new AssertionError("Try " + (i + 1) + " of " + tries + " failed; run again with "
						+ "-Dllm.resilience.seed=" + seed + ": " + ex.getMessage(), ex);
			}
		}
	}

}
