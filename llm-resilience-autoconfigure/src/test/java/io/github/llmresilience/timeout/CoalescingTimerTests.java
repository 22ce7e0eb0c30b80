package io.github.llmresilience.timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class CoalescingTimerTests {

	private final CoalescingTimer timer = new CoalescingTimer(1, TimeUnit.MILLISECONDS, Duration.ofMillis(5));

	@AfterEach
	void dispose() {
		this.timer.dispose();
	}

	@Test
	void firesInDeadlineOrderAndNeverADisposedTask() {
		List<String> fired = new CopyOnWriteArrayList<>();
		this.timer.schedule(() -> fired.add("late"), 30, TimeUnit.MILLISECONDS);
		this.timer.schedule(() -> fired.add("disposed"), 5, TimeUnit.MILLISECONDS).dispose();
		this.timer.schedule(() -> fired.add("early"), 10, TimeUnit.MILLISECONDS);
		await().atMost(Duration.ofSeconds(10)).until(() -> fired.size() == 2);
		// The disposed task was due before both: had it not been dropped it would be
		// listed.
		assertThat(fired).containsExactly("early", "late");
	}

	@Test
	void reactorTimeoutsAndDelaysRunOnIt() {
		assertThat(Mono.delay(Duration.ofMillis(2), this.timer).thenReturn("delayed").block(Duration.ofSeconds(10)))
			.isEqualTo("delayed");
		assertThat(Mono.never()
			.timeout(Duration.ofMillis(2), this.timer)
			.onErrorReturn("timed out")
			.block(Duration.ofSeconds(10))).isEqualTo("timed out");
	}

	@Test
	void wakesForATaskScheduledAfterItFellAsleep() {
		// Idle long enough to park without a deadline, then a task must still wake it.
		this.timer.schedule(() -> {
		}, 1, TimeUnit.MILLISECONDS);
		List<String> fired = new CopyOnWriteArrayList<>();
		await().atMost(Duration.ofSeconds(10)).until(this.timer::isAsleep);
		this.timer.schedule(() -> fired.add("after sleep"), 1, TimeUnit.MILLISECONDS);
		await().atMost(Duration.ofSeconds(10)).until(() -> fired.size() == 1);
	}

	@Test
	void theSharedTimerIsOneInstance() {
		assertThat(CoalescingTimer.shared()).isSameAs(CoalescingTimer.shared());
	}

}
