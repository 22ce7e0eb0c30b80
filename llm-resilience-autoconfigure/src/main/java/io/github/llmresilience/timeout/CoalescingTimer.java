package io.github.llmresilience.timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The timer of attempt timeouts, stall timeouts and backoffs: a Reactor {@link Scheduler}
 * for timed tasks that almost never takes a lock or wakes a thread.
 *
 * <p>
 * The executor arms a timeout alarm per attempt with {@code Scheduler.schedule(task,
 * 30 s)} and disposes it when the attempt ends. On {@link Schedulers#parallel()} that is
 * a {@code ScheduledThreadPoolExecutor}: every arm takes the queue's lock, and because
 * the queue is empty again after each dispose, the new alarm becomes its head and the
 * worker thread is signalled, woken and parked again (a futex wake per call, and a
 * context switch on the worker). This timer takes timed tasks without a lock and, nearly
 * always, without waking anyone: callers append to a lock-free queue and wake the timer
 * thread only when their deadline comes before the thread's next wake-up. The thread
 * wakes at the earliest deadline it knows, and at least once per tick while there is
 * work, to take in new tasks and drop the disposed ones; after a second without any it
 * parks until woken. A task fires at most one tick late (a race between a caller and the
 * thread going to sleep); attempt timeouts are seconds, a tick is milliseconds.
 *
 * <p>
 * Tasks without a delay, workers, and timed tasks once due run on
 * {@link Schedulers#parallel()}: the timer thread only keeps time.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public final class CoalescingTimer implements Scheduler {

	/**
	 * How late a task may fire at most, in a race with the timer thread falling asleep.
	 */
	public static final long TICK_MILLIS = 10;

	private static volatile @Nullable CoalescingTimer shared;

	private final long tickNanos;

	private final long idleTicks;

	private final Scheduler immediate = Schedulers.parallel();

	private final ConcurrentLinkedQueue<Timed> incoming = new ConcurrentLinkedQueue<>();

	private final Thread thread;

	/**
	 * When the timer thread wakes next; {@link Long#MAX_VALUE} when only a caller wakes
	 * it.
	 */
	private volatile long wakeAt = Long.MAX_VALUE;

	private volatile boolean disposed;

	/** The timer shared by every executor of this class loader; one daemon thread. */
	public static CoalescingTimer shared() {
		CoalescingTimer timer = shared;
		if (timer == null || timer.isDisposed()) {
			synchronized (CoalescingTimer.class) {
				timer = shared;
				if (timer == null || timer.isDisposed()) {
					timer = new CoalescingTimer(TICK_MILLIS, TimeUnit.MILLISECONDS);
					shared = timer;
				}
			}
		}
		return timer;
	}

	public CoalescingTimer(long tick, TimeUnit unit) {
		this(tick, unit, Duration.ofSeconds(1));
	}

	/**
	 * @param tick how late a task may fire at most
	 * @param unit the tick's unit
	 * @param idle how long without any task before the thread sleeps until woken
	 */
	CoalescingTimer(long tick, TimeUnit unit, Duration idle) {
		this.tickNanos = unit.toNanos(tick);
		this.idleTicks = Math.max(1, idle.toNanos() / this.tickNanos);
		this.thread = new Thread(this::loop, "llm-resilience-timer");
		this.thread.setDaemon(true);
		this.thread.start();
	}

	@Override
	public Disposable schedule(Runnable task) {
		return this.immediate.schedule(task);
	}

	@Override
	public Disposable schedule(Runnable task, long delay, TimeUnit unit) {
		return scheduleAt(task, System.nanoTime() + unit.toNanos(delay));
	}

	/**
	 * Run the task at a deadline on {@link System#nanoTime()}: for a caller that has just
	 * read the time (an attempt's start), one clock read less than
	 * {@link #schedule(Runnable, long, TimeUnit)}.
	 */
	public Disposable scheduleAt(Runnable task, long deadlineNanos) {
		Timed timed = new Timed(task, deadlineNanos);
		this.incoming.offer(timed);
		// The thread takes the task in when it next wakes: wake it only if that is too
		// late.
		if (timed.deadline - this.wakeAt < 0) {
			LockSupport.unpark(this.thread);
		}
		return timed;
	}

	@Override
	public Worker createWorker() {
		return this.immediate.createWorker();
	}

	/** Whether the timer thread sleeps until a caller wakes it (nothing to time). */
	boolean isAsleep() {
		return this.wakeAt == Long.MAX_VALUE && this.thread.getState() == Thread.State.WAITING;
	}

	@Override
	public void dispose() {
		this.disposed = true;
		LockSupport.unpark(this.thread);
	}

	@Override
	public boolean isDisposed() {
		return this.disposed;
	}

	private void loop() {
		List<Timed> pending = new ArrayList<>();
		long emptyRounds = 0;
		while (!this.disposed) {
			boolean tookAny = false;
			for (Timed timed; (timed = this.incoming.poll()) != null;) {
				tookAny = true;
				if (!timed.isDisposed()) {
					pending.add(timed);
				}
			}
			long now = System.nanoTime();
			long earliest = now + this.tickNanos;
			int kept = 0;
			for (int i = 0; i < pending.size(); i++) {
				Timed timed = pending.get(i);
				if (timed.isDisposed()) {
					continue;
				}
				if (timed.deadline - now <= 0) {
					// Run it elsewhere: a fired timeout continues the caller's pipeline
					// (failover, the next attempt), which must never hold up other
					// timers.
					if (timed.claim()) {
						this.immediate.schedule(timed.task);
					}
					continue;
				}
				if (timed.deadline - earliest < 0) {
					earliest = timed.deadline;
				}
				pending.set(kept++, timed);
			}
			pending.subList(kept, pending.size()).clear();
			emptyRounds = (tookAny || !pending.isEmpty()) ? 0 : emptyRounds + 1;
			if (emptyRounds > this.idleTicks) {
				// Nothing for a second: sleep until a caller wakes this thread. Announce
				// it first, then look again, so that a task offered meanwhile is never
				// missed.
				this.wakeAt = Long.MAX_VALUE;
				if (this.incoming.isEmpty()) {
					LockSupport.park(this);
				}
			}
			else {
				this.wakeAt = earliest;
				LockSupport.parkNanos(this, earliest - now);
			}
		}
	}

	/** One timed task; disposing it only marks it, the timer thread drops it. */
	private static final class Timed implements Disposable {

		final Runnable task;

		final long deadline;

		private volatile boolean cancelled;

		Timed(Runnable task, long deadline) {
			this.task = task;
			this.deadline = deadline;
		}

		/** Take the task for running; {@code false} when it was disposed or taken. */
		boolean claim() {
			if (this.cancelled) {
				return false;
			}
			this.cancelled = true;
			return true;
		}

		@Override
		public void dispose() {
			this.cancelled = true;
		}

		@Override
		public boolean isDisposed() {
			return this.cancelled;
		}

	}

}
