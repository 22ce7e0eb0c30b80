package io.github.llmresilience.sample.drill;

import java.time.Duration;

/**
 * The tail drill: streaming calls at a steady pace through the chain
 * {@code primary -> secondary}, primary in the simulator's {@code tail} mode (a share of
 * first tokens ten times later than the rest), secondary normal in another failure
 * domain.
 *
 * <p>
 * The defaults: 5 % slow, 400 calls, one every 80 ms (32 s; about 11 in flight at the
 * real latency): twenty slow first tokens expected, the p99 four calls deep among them. A
 * {@code timeScale} below 1 shrinks the time between calls and the deadline alike; the
 * latencies follow {@code sample.simulator.latency-scale}.
 *
 * @param slowPercent the share of primary's first tokens that are slow, in percent
 * @param calls the streaming calls
 * @param period the time between two calls' starts
 * @param timeScale factor on every duration (1: real time; 0.1: ten times faster)
 * @param deadline each call's deadline
 */
public record TailDrillPlan(double slowPercent, int calls, Duration period, double timeScale, Duration deadline) {

	public TailDrillPlan {
		if (!(slowPercent >= 0 && slowPercent <= 100)) {
			throw new IllegalArgumentException("--slow-percent must be between 0 and 100, was " + slowPercent);
		}
		if (calls < 1 || calls > 100_000) {
			throw new IllegalArgumentException("--calls must be between 1 and 100000, was " + calls);
		}
		if (period.isNegative() || period.isZero()) {
			throw new IllegalArgumentException("The time between calls must be positive, was " + period);
		}
		if (!(timeScale >= 0.01 && timeScale <= 10)) {
			throw new IllegalArgumentException("--time-scale must be between 0.01 and 10, was " + timeScale);
		}
		if (deadline.isNegative() || deadline.isZero()) {
			throw new IllegalArgumentException("The deadline must be positive, was " + deadline);
		}
	}

	/**
	 * The drill at real time; see the class comment for why these figures.
	 * @param deadline each call's deadline (the sample's {@code sample.answers.deadline})
	 */
	public static TailDrillPlan of(double slowPercent, int calls, Duration deadline) {
		return new TailDrillPlan(slowPercent, calls, Duration.ofMillis(80), 1, deadline);
	}

	/** The same drill with the time between calls and the deadline times the factor. */
	public TailDrillPlan scaled(double factor) {
		return new TailDrillPlan(this.slowPercent, this.calls, scale(this.period, factor), this.timeScale * factor,
				scale(this.deadline, factor));
	}

	/** How long the calls take to start. */
	public Duration duration() {
		return this.period.multipliedBy(this.calls);
	}

	private static Duration scale(Duration duration, double factor) {
		return Duration.ofNanos(Math.round(duration.toNanos() * factor));
	}

}
