package io.github.llmresilience.sample.simulator;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * The body of {@code PUT /admin/targets/{name}/mode}.
 *
 * @param mode the mode's name, such as {@code outage} or {@code content-filter}
 * @param seconds how long the mode lasts before the target is normal again; absent for
 * until changed
 * @param retryAfterSeconds the wait a {@code throttle} answer asks for
 * @param probability the share of requests a {@code flaky} target fails (default 0.5), or
 * a {@code tail} target slows (default 0.05)
 * @param capacity the concurrent requests a {@code brownout} target serves before it
 * queues and sheds (default 8)
 */
public record ModeRequest(@Nullable String mode, @Nullable Integer seconds, @Nullable Integer retryAfterSeconds,
		@Nullable Double probability, @Nullable Integer capacity) {

	/**
	 * @throws IllegalArgumentException saying what is wrong with the request
	 */
	ModeSetting toSetting(Instant now) {
		if (this.mode == null) {
			throw new IllegalArgumentException("mode is required");
		}
		ModeSetting setting = ModeSetting.of(Mode.of(this.mode));
		if (this.retryAfterSeconds != null) {
			setting = setting.withRetryAfterSeconds(this.retryAfterSeconds);
		}
		if (this.probability != null) {
			setting = setting.withProbability(this.probability);
		}
		if (this.capacity != null) {
			setting = setting.withCapacity(this.capacity);
		}
		if (this.seconds != null) {
			if (this.seconds <= 0) {
				throw new IllegalArgumentException("seconds must be positive, was " + this.seconds);
			}
			setting = setting.lasting(Duration.ofSeconds(this.seconds), now);
		}
		return setting;
	}

}
