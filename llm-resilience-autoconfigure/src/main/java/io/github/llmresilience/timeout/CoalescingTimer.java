package io.github.llmresilience.timeout;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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
 * A blocking caller's attempt timeout needs even less: {@link #arm} writes the attempt
 * and its deadline into an {@link Alarm} that belongs to the calling thread and is reused
 * for every attempt it makes, and {@link Alarm#dispose()} clears it; the timer thread
 * looks at every thread's alarm when it wakes. No object and no queue node per attempt,
 * and one memory fence (the arm's write, ordered against the timer falling asleep).
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

	/** Alarms of threads that armed one for the first time, not yet watched. */
	private final ConcurrentLinkedQueue<Alarm> joined = new ConcurrentLinkedQueue<>();

	/** Each thread's own alarm at this timer. */
	private final ThreadLocal<Alarm> alarms = new ThreadLocal<>();

	private final Thread thread;

	/**
	 * When the timer thread wakes next; {@link Long#MAX_VALUE} when only a caller wakes
	 * it.
	 */
	private volatile long wakeAt = Long.MAX_VALUE;

	private volatile boolean disposed;

	/** How many threads' alarms the timer thread looked at when it last woke. */
	private volatile int watching;

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

	/**
	 * Arm the calling thread's alarm: at the deadline, unless disposed first, the timer
	 * hands the token and this thread to the expiry, on {@link Schedulers#parallel()}. A
	 * thread whose alarm is armed already (a blocking call made inside another's call
	 * function) gets a timed task of its own instead, as
	 * {@link #scheduleAt(Runnable, long)} makes.
	 * @param token what the expiry is about (the attempt); compared by identity
	 * @param deadlineNanos the deadline on {@link System#nanoTime()}
	 * @param expiry what to do at the deadline; never allocated per call by a caller that
	 * keeps it in a field
	 * @return what disarms it
	 */
	@SuppressWarnings("unchecked")
	public <T> Disposable arm(T token, long deadlineNanos, Expiry<? super T> expiry) {
		Alarm alarm = this.alarms.get();
		if (alarm == null) {
			alarm = new Alarm(Thread.currentThread());
			this.alarms.set(alarm);
			this.joined.offer(alarm);
		}
		else if (alarm.token != null) {
			Thread caller = Thread.currentThread();
			return scheduleAt(() -> expiry.expire(token, caller), deadlineNanos);
		}
		alarm.arm(token, deadlineNanos, (Expiry<Object>) expiry);
		if (deadlineNanos - this.wakeAt < 0) {
			LockSupport.unpark(this.thread);
		}
		return alarm;
	}

	@Override
	public Worker createWorker() {
		return this.immediate.createWorker();
	}

	/** How many threads' alarms the timer thread looked at when it last woke. */
	int watching() {
		return this.watching;
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
		List<Alarm> watched = new ArrayList<>();
		long emptyRounds = 0;
		while (!this.disposed) {
			boolean tookAny = false;
			for (Timed timed; (timed = this.incoming.poll()) != null;) {
				tookAny = true;
				if (!timed.isDisposed()) {
					pending.add(timed);
				}
			}
			for (Alarm alarm; (alarm = this.joined.poll()) != null;) {
				watched.add(alarm);
			}
			long now = System.nanoTime();
			long earliest = now + this.tickNanos;
			boolean armed = false;
			int watching = 0;
			for (int i = 0; i < watched.size(); i++) {
				Alarm alarm = watched.get(i);
				Object token = alarm.token;
				if (token == null) {
					if (!alarm.owner.isAlive()) {
						// The thread is gone, and its alarm with it.
						continue;
					}
				}
				else {
					armed = true;
					long deadline = alarm.deadline();
					if (deadline - now <= 0) {
						alarm.fire(token, this.immediate);
					}
					else if (deadline - earliest < 0) {
						earliest = deadline;
					}
				}
				watched.set(watching++, alarm);
			}
			watched.subList(watching, watched.size()).clear();
			this.watching = watching;
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
			emptyRounds = (tookAny || armed || !pending.isEmpty()) ? 0 : emptyRounds + 1;
			if (emptyRounds > this.idleTicks) {
				// Nothing for a second: sleep until a caller wakes this thread. Announce
				// it first, then look again, so that a task offered or an alarm armed
				// meanwhile is never missed.
				this.wakeAt = Long.MAX_VALUE;
				if (this.incoming.isEmpty() && this.joined.isEmpty() && !anyArmed(watched)) {
					LockSupport.park(this);
				}
			}
			else {
				this.wakeAt = earliest;
				LockSupport.parkNanos(this, earliest - now);
			}
		}
	}

	private static boolean anyArmed(List<Alarm> alarms) {
		for (Alarm alarm : alarms) {
			if (alarm.token != null) {
				return true;
			}
		}
		return false;
	}

	/**
	 * What an alarm does at its deadline.
	 *
	 * @param <T> the token's type
	 */
	@FunctionalInterface
	public interface Expiry<T> {

		/**
		 * The deadline passed before the alarm was disposed.
		 * @param token the token the alarm was armed with
		 * @param owner the thread that armed it
		 */
		void expire(T token, Thread owner);

	}

	/**
	 * One thread's alarm, armed with a token and a deadline and disposed by that thread
	 * for each of its attempts. The token's identity tells attempts apart: the timer
	 * fires an alarm only by swapping out the token it saw, so a late look never fires
	 * the thread's next attempt.
	 */
	static final class Alarm implements Disposable {

		private static final VarHandle TOKEN;

		private static final VarHandle DEADLINE;

		private static final VarHandle EXPIRY;

		static {
			try {
				MethodHandles.Lookup lookup = MethodHandles.lookup();
				TOKEN = lookup.findVarHandle(Alarm.class, "token", Object.class);
				DEADLINE = lookup.findVarHandle(Alarm.class, "deadline", long.class);
				EXPIRY = lookup.findVarHandle(Alarm.class, "expiry", Expiry.class);
			}
			catch (ReflectiveOperationException ex) {
				throw new ExceptionInInitializerError(ex);
			}
		}

		final Thread owner;

		/**
		 * The deadline and the expiry of the armed token: written by the owner with
		 * release after its last disarm, read by the timer with acquire after the token,
		 * so a timer that sees the next attempt's values also sees the last one disarmed,
		 * and its swap fails.
		 */
		@SuppressWarnings("unused")
		private long deadline;

		@SuppressWarnings("unused")
		private @Nullable Expiry<Object> expiry;

		/** The armed attempt; {@code null} when disarmed. */
		volatile @Nullable Object token;

		Alarm(Thread owner) {
			this.owner = owner;
		}

		void arm(Object token, long deadline, Expiry<Object> expiry) {
			DEADLINE.setRelease(this, deadline);
			EXPIRY.setRelease(this, expiry);
			// The volatile write orders the deadline before it for the timer thread, and
			// against the owner's read of wakeAt after it: either the timer sees this
			// alarm before it sleeps, or the owner sees the timer asleep and wakes it.
			this.token = token;
		}

		long deadline() {
			return (long) DEADLINE.getAcquire(this);
		}

		/** Fire the alarm for the token seen armed, unless it was disarmed meanwhile. */
		@SuppressWarnings("unchecked")
		void fire(Object token, Scheduler on) {
			Expiry<Object> expiry = (Expiry<Object>) EXPIRY.getAcquire(this);
			if (expiry != null && TOKEN.compareAndSet(this, token, null)) {
				on.schedule(() -> expiry.expire(token, this.owner));
			}
		}

		@Override
		public void dispose() {
			// No fence: the owner's own next arm, or the timer's next look, sees it.
			TOKEN.setRelease(this, null);
		}

		@Override
		public boolean isDisposed() {
			return this.token == null;
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
