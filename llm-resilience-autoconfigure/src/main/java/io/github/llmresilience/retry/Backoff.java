package io.github.llmresilience.retry;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * Full-jitter exponential backoff: before retry {@code n} (0 for the first) wait a random
 * time in {@code [0, min(max, base * 2^n))}. Jitter spreads a fleet's retries so that
 * they do not arrive together.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public final class Backoff {

	private final long baseNanos;

	private final long maxNanos;

	private final DoubleSupplier random;

	/**
	 * @param base the ceiling before the first retry
	 * @param max the highest ceiling
	 * @param random uniform values in {@code [0, 1)}
	 */
	public Backoff(Duration base, Duration max, DoubleSupplier random) {
		this.baseNanos = base.toNanos();
		this.maxNanos = max.toNanos();
		this.random = random;
	}

	public Backoff(Duration base, Duration max) {
		this(base, max, () -> ThreadLocalRandom.current().nextDouble());
	}

	/** The ceiling before retry {@code n}: {@code min(max, base * 2^n)}. */
	public Duration ceiling(int retry) {
		long ceiling = this.baseNanos;
		for (int i = 0; i < retry && ceiling < this.maxNanos; i++) {
			ceiling = (ceiling > this.maxNanos / 2) ? this.maxNanos : ceiling * 2;
		}
		return Duration.ofNanos(Math.min(ceiling, this.maxNanos));
	}

	/** A random wait before retry {@code n}. */
	public Duration delay(int retry) {
		double share = this.random.getAsDouble();
		if (!(share >= 0) || share >= 1) {
			share = 0;
		}
		return Duration.ofNanos((long) (ceiling(retry).toNanos() * share));
	}

}
