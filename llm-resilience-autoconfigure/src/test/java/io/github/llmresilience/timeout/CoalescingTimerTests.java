package io.github.llmresilience.timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

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
	void anArmedAlarmFiresWithItsTokenOnItsOwnerAndADisarmedOneNever() {
		List<String> fired = new CopyOnWriteArrayList<>();
		List<Thread> owners = new CopyOnWriteArrayList<>();
		CoalescingTimer.Expiry<String> expiry = (token, owner) -> {
			fired.add(token);
			owners.add(owner);
		};
		this.timer.arm("first", System.nanoTime() + Duration.ofMillis(5).toNanos(), expiry);
		await().atMost(Duration.ofSeconds(10)).until(() -> fired.size() == 1);
		this.timer.arm("disarmed", System.nanoTime() + Duration.ofMillis(5).toNanos(), expiry).dispose();
		this.timer.arm("third", System.nanoTime() + Duration.ofMillis(20).toNanos(), expiry);
		await().atMost(Duration.ofSeconds(10)).until(() -> fired.size() == 2);
		// The disarmed alarm was due before the third: had it fired it would be listed.
		assertThat(fired).containsExactly("first", "third");
		assertThat(owners).containsOnly(Thread.currentThread());
	}

	@Test
	void anAlarmArmedWhileTheThreadsAlarmIsArmedGetsATaskOfItsOwn() {
		List<String> fired = new CopyOnWriteArrayList<>();
		CoalescingTimer.Expiry<String> expiry = (token, owner) -> fired.add(token);
		Disposable outer = this.timer.arm("outer", System.nanoTime() + Duration.ofMillis(30).toNanos(), expiry);
		Disposable inner = this.timer.arm("inner", System.nanoTime() + Duration.ofMillis(5).toNanos(), expiry);
		assertThat(inner).isNotSameAs(outer);
		await().atMost(Duration.ofSeconds(10)).until(() -> fired.size() == 2);
		assertThat(fired).containsExactly("inner", "outer");
	}

	@Test
	void aLookAtAnAttemptAlreadyDisarmedNeverFiresTheNextOne() {
		List<String> fired = new CopyOnWriteArrayList<>();
		CoalescingTimer.Expiry<String> expiry = (token, owner) -> fired.add(token);
		long later = System.nanoTime() + Duration.ofMinutes(1).toNanos();
		CoalescingTimer.Alarm alarm = (CoalescingTimer.Alarm) this.timer.arm("first", later, expiry);
		alarm.dispose();
		this.timer.arm("second", later, expiry);
		// The timer saw "first" armed, and fires it after the thread moved on.
		alarm.fire("first", Schedulers.immediate());
		assertThat(fired).isEmpty();
		assertThat(alarm.isDisposed()).isFalse();
		alarm.fire("second", Schedulers.immediate());
		assertThat(fired).containsExactly("second");
		assertThat(alarm.isDisposed()).isTrue();
	}

	@Test
	void wakesForAnAlarmArmedAfterItFellAsleep() {
		await().atMost(Duration.ofSeconds(10)).until(this.timer::isAsleep);
		List<String> fired = new CopyOnWriteArrayList<>();
		this.timer.arm("after sleep", System.nanoTime() + Duration.ofMillis(1).toNanos(),
				(token, owner) -> fired.add(token));
		await().atMost(Duration.ofSeconds(10)).until(() -> fired.size() == 1);
	}

	@Test
	void aThreadsAlarmIsDroppedOnceTheThreadEnded() throws InterruptedException {
		Thread caller = new Thread(
				() -> this.timer.arm("done", System.nanoTime() + Duration.ofMinutes(1).toNanos(), (token, owner) -> {
				}).dispose());
		caller.start();
		caller.join();
		// Armed once so that the timer watches a thread that is still alive, then wait
		// for it to have dropped the ended one.
		this.timer.arm("here", System.nanoTime() + Duration.ofMinutes(1).toNanos(), (token, owner) -> {
		});
		await().atMost(Duration.ofSeconds(10)).until(() -> this.timer.watching() == 1);
	}

	@Test
	void theSharedTimerIsOneInstance() {
		assertThat(CoalescingTimer.shared()).isSameAs(CoalescingTimer.shared());
	}

}
