package io.github.llmresilience.test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import java.util.function.IntSupplier;

import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * Virtual time for tests: a {@link Clock} and a Reactor {@link Scheduler} that share one
 * "now", which moves only when the test says so. Timers (attempt timeouts, backoffs) run
 * on the thread that advances time, in due order.
 *
 * <p>
 * Also, for the tests that need them: time that moves a little at every read
 * ({@link #advanceOnEveryRead(Duration)}), time set back ({@link #rewind(Duration)}), and
 * a view that is only a {@link Clock} ({@link #clock()}).
 */
public final class ManualTime extends Clock implements Scheduler {

	private final Instant origin;

	private final PriorityQueue<Task> queue = new PriorityQueue<>();

	private long sequence;

	private static final AtomicLongFieldUpdater<ManualTime> NOW_NANOS = AtomicLongFieldUpdater
		.newUpdater(ManualTime.class, "nowNanos");

	private volatile long nowNanos;

	private volatile long stepOnReadNanos;

	public ManualTime(Instant origin) {
		this.origin = origin;
	}

	public ManualTime() {
		this(Instant.parse("2026-11-29T12:00:00Z"));
	}

	// Clock --------------------------------------------------------------------------

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
		long step = this.stepOnReadNanos;
		return this.origin.plusNanos((step != 0) ? NOW_NANOS.getAndAdd(this, step) : this.nowNanos);
	}

	/**
	 * This time as a plain {@link Clock} that is not also a {@link Scheduler}: for an
	 * application context, where a bean that is a {@code Scheduler} may be picked up as
	 * the one to run timers on (the sample app's simulator runs its latencies on a
	 * {@code Scheduler} bean when there is one) and would then wait for the test to move
	 * time.
	 */
	public Clock clock() {
		return new ClockView();
	}

	/**
	 * This time on a monotonic nanosecond scale, as the engine reads
	 * {@link System#nanoTime()} on the system clock.
	 */
	public long nanoTime() {
		return Duration.between(Instant.EPOCH, instant()).toNanos();
	}

	/** Time passed since the origin. */
	public Duration elapsed() {
		return Duration.ofNanos(this.nowNanos);
	}

	// Moving time ----------------------------------------------------------------------

	/** Move time forward, running every timer that falls due on the way. */
	public void advance(Duration duration) {
		advanceTo(this.nowNanos + duration.toNanos());
	}

	/** Move time to an instant (never backwards), running due timers. */
	public void advanceTo(Instant instant) {
		long target = Duration.between(this.origin, instant).toNanos();
		advanceTo(Math.max(target, this.nowNanos));
	}

	private void advanceTo(long target) {
		while (true) {
			Task task;
			synchronized (this.queue) {
				task = this.queue.peek();
				if (task == null || task.due > target) {
					break;
				}
				this.queue.poll();
			}
			if (task.due > this.nowNanos) {
				this.nowNanos = task.due;
			}
			task.run();
		}
		if (target > this.nowNanos) {
			this.nowNanos = target;
		}
	}

	/**
	 * From now on, every read of the clock moves time forward by {@code step} after
	 * reading it, as the answers of one incident read slightly later "now"s on a real
	 * clock. Concurrent readers each read a time of their own. Reads run no timer.
	 */
	public void advanceOnEveryRead(Duration step) {
		this.stepOnReadNanos = step.toNanos();
	}

	/**
	 * Move time backwards, as a wall clock set back (by NTP, by hand) does. No timer
	 * runs, and pending timers keep their due times.
	 */
	public void rewind(Duration duration) {
		NOW_NANOS.addAndGet(this, -duration.toNanos());
	}

	/**
	 * Run the next pending timer, moving time to it; {@code false} when there is none.
	 */
	public boolean advanceToNextTimer() {
		return advanceToNextTimer(Long.MAX_VALUE);
	}

	private boolean advanceToNextTimer(long maxJumpNanos) {
		Task task;
		synchronized (this.queue) {
			task = this.queue.peek();
		}
		if (task == null || task.due - this.nowNanos > maxJumpNanos) {
			return false;
		}
		advanceTo(Math.max(task.due, this.nowNanos));
		return true;
	}

	public int pendingTimers() {
		synchronized (this.queue) {
			return this.queue.size();
		}
	}

	/**
	 * Wait for a Mono while real I/O happens, and move virtual time to the next timer
	 * whenever nothing is in flight: backoffs pass instantly, timeouts of calls in flight
	 * never fire early.
	 * @param mono the call
	 * @param inFlight the number of requests in flight (0 lets time move)
	 */
	public <T> T await(Mono<T> mono, IntSupplier inFlight) {
		return await(mono.toFuture(), inFlight);
	}

	/**
	 * Like {@link #await(Mono, IntSupplier)}, for a blocking call run on another thread.
	 */
	public <T> T await(CompletableFuture<T> future, IntSupplier inFlight) {
		return await(future, inFlight, Duration.ofNanos(Long.MAX_VALUE));
	}

	/**
	 * Like {@link #await(CompletableFuture, IntSupplier)}, moving time only to timers due
	 * within {@code maxJump}. A blocking call arms its attempt's alarm before its call
	 * function can count itself in flight; on a busy machine the waiting thread may look
	 * in that instant and fire the alarm early. A jump shorter than the attempt timeout
	 * lets backoffs pass and never reaches an alarm.
	 */
	public <T> T await(CompletableFuture<T> future, IntSupplier inFlight, Duration maxJump) {
		long maxJumpNanos = maxJump.toNanos();
		for (int round = 0; round < 20_000; round++) {
			try {
				return future.get(2, TimeUnit.MILLISECONDS);
			}
			catch (TimeoutException ex) {
				if (inFlight.getAsInt() == 0) {
					advanceToNextTimer(maxJumpNanos);
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
			catch (ExecutionException ex) {
				Throwable cause = ex.getCause();
				if (cause instanceof CompletionException && cause.getCause() != null) {
					cause = cause.getCause();
				}
				if (cause instanceof RuntimeException runtime) {
					throw runtime;
				}
				throw new IllegalStateException(cause);
			}
		}
		throw new AssertionError("The call did not end within 20,000 rounds");
	}

	// Scheduler ------------------------------------------------------------------------

	/**
	 * This time as a scheduler alone: a bean of it is not also a {@link Clock} (the
	 * auto-configuration's {@code llmResilienceScheduler} beside its clock bean).
	 */
	public Scheduler schedulerOnly() {
		ManualTime time = this;
		return new Scheduler() {

			@Override
			public Disposable schedule(Runnable task) {
				return time.schedule(task);
			}

			@Override
			public Disposable schedule(Runnable task, long delay, TimeUnit unit) {
				return time.schedule(task, delay, unit);
			}

			@Override
			public long now(TimeUnit unit) {
				return time.now(unit);
			}

			@Override
			public Worker createWorker() {
				return time.createWorker();
			}

		};
	}

	@Override
	public Disposable schedule(Runnable task) {
		task.run();
		return () -> {
		};
	}

	@Override
	public Disposable schedule(Runnable task, long delay, TimeUnit unit) {
		Task timed;
		synchronized (this.queue) {
			timed = new Task(this.nowNanos + Math.max(0, unit.toNanos(delay)), this.sequence++, task, this);
			this.queue.add(timed);
		}
		return timed;
	}

	@Override
	public Disposable schedulePeriodically(Runnable task, long initialDelay, long period, TimeUnit unit) {
		throw new UnsupportedOperationException("Periodic timers are not used by llm-resilience");
	}

	@Override
	public Worker createWorker() {
		return new Worker() {

			private final List<Disposable> tasks = new ArrayList<>();

			private volatile boolean disposed;

			@Override
			public Disposable schedule(Runnable task) {
				return schedule(task, 0, TimeUnit.NANOSECONDS);
			}

			@Override
			public Disposable schedule(Runnable task, long delay, TimeUnit unit) {
				Disposable scheduled = ManualTime.this.schedule(task, delay, unit);
				synchronized (this.tasks) {
					this.tasks.add(scheduled);
				}
				return scheduled;
			}

			@Override
			public void dispose() {
				this.disposed = true;
				synchronized (this.tasks) {
					this.tasks.forEach(Disposable::dispose);
				}
			}

			@Override
			public boolean isDisposed() {
				return this.disposed;
			}

		};
	}

	@Override
	public long now(TimeUnit unit) {
		return unit.convert(Duration.between(Instant.EPOCH, instant()).toNanos(), TimeUnit.NANOSECONDS);
	}

	private final class ClockView extends Clock {

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
			return ManualTime.this.instant();
		}

	}

	private static final class Task implements Comparable<Task>, Disposable, Runnable {

		private final long due;

		private final long order;

		private final Runnable action;

		private final ManualTime owner;

		private final AtomicInteger state = new AtomicInteger();

		Task(long due, long order, Runnable action, ManualTime owner) {
			this.due = due;
			this.order = order;
			this.action = action;
			this.owner = owner;
		}

		@Override
		public void run() {
			if (this.state.compareAndSet(0, 1)) {
				this.action.run();
			}
		}

		@Override
		public void dispose() {
			if (this.state.compareAndSet(0, 2)) {
				synchronized (this.owner.queue) {
					this.owner.queue.remove(this);
				}
			}
		}

		@Override
		public boolean isDisposed() {
			return this.state.get() != 0;
		}

		@Override
		public int compareTo(Task other) {
			int byDue = Long.compare(this.due, other.due);
			return (byDue != 0) ? byDue : Long.compare(this.order, other.order);
		}

	}

}
