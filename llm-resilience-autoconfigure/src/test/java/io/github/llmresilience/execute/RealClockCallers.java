package io.github.llmresilience.execute;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.github.llmresilience.retry.RetrySettings;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.timeout.CoalescingTimer;
import reactor.core.scheduler.Scheduler;

/**
 * What the tests of attempts' alarms share: the coalescing timer (the default) and eight
 * threads of concurrent callers, closed after each test, and their engine: chain
 * {@code chat} of {@code primary} (OpenAI) then {@code secondary} (Anthropic), one
 * attempt each.
 */
final class RealClockCallers implements AutoCloseable {

	final CoalescingTimer timer = new CoalescingTimer(CoalescingTimer.TICK_MILLIS, TimeUnit.MILLISECONDS);

	final ExecutorService callers = Executors.newFixedThreadPool(8);

	/** The engine on the real clock and the coalescing timer. */
	LlmResilience engine(Duration attemptTimeout) {
		return engine(Clock.systemUTC(), this.timer, attemptTimeout);
	}

	/** The same engine on another clock and scheduler (a test's virtual time). */
	static LlmResilience engine(Clock clock, Scheduler scheduler, Duration attemptTimeout) {
		return LlmResilience.builder()
			.clock(clock)
			.scheduler(scheduler)
			.target(Target.of("primary", "openai"))
			.target(Target.of("secondary", "anthropic"))
			.chain("chat", "primary", "secondary")
			.timeouts(TimeoutSettings.defaults().withAttempt(attemptTimeout))
			.retry(new RetrySettings(1, Duration.ofMillis(500), Duration.ofSeconds(30), 0.1, Duration.ofSeconds(10), 3))
			.build();
	}

	@Override
	public void close() {
		this.callers.shutdownNow();
		this.timer.dispose();
	}

}
