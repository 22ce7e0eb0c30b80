package io.github.llmresilience.sample.simulator;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TimeMeter;

/**
 * A simulated target's request rate limit, the way OpenAI describes its own: a bucket of
 * a minute's requests that refills continuously (Bucket4j, on the simulator's clock).
 */
final class RequestLimit {

	private final long perMinute;

	private final Bucket bucket;

	RequestLimit(long perMinute, Clock clock) {
		if (perMinute < 1) {
			throw new IllegalArgumentException("A rate limit must be at least 1 request a minute, was " + perMinute);
		}
		this.perMinute = perMinute;
		TimeMeter meter = new TimeMeter() {

			@Override
			public long currentTimeNanos() {
				Instant now = clock.instant();
				return now.getEpochSecond() * 1_000_000_000L + now.getNano();
			}

			@Override
			public boolean isWallClockBased() {
				return true;
			}

		};
		this.bucket = Bucket.builder()
			.withCustomTimePrecision(meter)
			.addLimit(Bandwidth.builder().capacity(perMinute).refillGreedy(perMinute, Duration.ofMinutes(1)).build())
			.build();
	}

	long perMinute() {
		return this.perMinute;
	}

	/**
	 * Take one request.
	 * @return whether it was within the limit, what is left and how long until the next
	 * request would be
	 */
	Take take() {
		ConsumptionProbe probe = this.bucket.tryConsumeAndReturnRemaining(1);
		long untilFull = Duration.ofMinutes(1).toNanos() * (this.perMinute - probe.getRemainingTokens())
				/ this.perMinute;
		return new Take(probe.isConsumed(), probe.getRemainingTokens(),
				Duration.ofNanos(probe.getNanosToWaitForRefill()), Duration.ofNanos(untilFull));
	}

	/**
	 * One request's take.
	 *
	 * @param granted whether it was within the limit
	 * @param remaining requests left now
	 * @param untilNext until the next request would be within it (zero when granted)
	 * @param untilFull until the bucket is full again
	 */
	record Take(boolean granted, long remaining, Duration untilNext, Duration untilFull) {

		/** The wait in whole seconds, rounded up, at least one: a retry-after. */
		int retryAfterSeconds() {
			long seconds = (this.untilNext.toNanos() + 999_999_999L) / 1_000_000_000L;
			return (int) Math.max(1, Math.min(seconds, 3600));
		}

	}

}
