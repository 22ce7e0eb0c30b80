package io.github.llmresilience.sample;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A clock that stands still until a test moves it, shared by llm-resilience (gates,
 * breakers, retry-after), the simulator (mode ends, rate-limit windows) and the job
 * queue: a test waits for a retry-after by moving time, not by sleeping.
 */
public final class TestClock extends Clock {

	private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-11-29T12:00:00Z"));

	@Override
	public ZoneId getZone() {
		return ZoneOffset.UTC;
	}

	@Override
	public Clock withZone(ZoneId zone) {
		return this;
	}

	@Override
	public Instant instant() {
		return this.now.get();
	}

	public void advance(Duration duration) {
		this.now.updateAndGet((instant) -> instant.plus(duration));
	}

	/** Move to an instant; never backwards. */
	public void advanceTo(Instant instant) {
		this.now.updateAndGet((current) -> instant.isAfter(current) ? instant : current);
	}

}
