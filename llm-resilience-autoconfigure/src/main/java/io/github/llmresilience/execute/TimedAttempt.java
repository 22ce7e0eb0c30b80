package io.github.llmresilience.execute;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

import io.github.llmresilience.timeout.CoalescingTimer;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.core.scheduler.Scheduler;
import reactor.util.context.Context;

/**
 * One reactive attempt: the call function's Mono, timed out at the attempt's timeout,
 * with its answer or its cancellation settled on the call's walk before the subscriber
 * sees it. Errors, the timeout's included, pass on to the walk's decision downstream.
 *
 * <p>
 * This is what {@code timeout(duration, scheduler)}, {@code doOnCancel} and
 * {@code doOnSuccess} did, in one operator: those three made eight objects and a
 * scheduled task per attempt, a third of a successful reactive call's cost. An answer
 * that arrives while the subscriber subscribes (a source that is ready) never arms the
 * alarm at all.
 *
 * @param <T> the answer's type
 */
final class TimedAttempt<T> extends Mono<T> {

	private final Mono<T> source;

	private final ChainRun run;

	private final TargetRuntime target;

	private final Attempt attempt;

	private final Scheduler scheduler;

	/** The scheduler when it keeps time on {@link System#nanoTime()}, else null. */
	private final @Nullable CoalescingTimer timer;

	TimedAttempt(Mono<T> source, ChainRun run, TargetRuntime target, Attempt attempt, Scheduler scheduler,
			@Nullable CoalescingTimer timer) {
		this.source = source;
		this.run = run;
		this.target = target;
		this.attempt = attempt;
		this.scheduler = scheduler;
		this.timer = timer;
	}

	@Override
	public void subscribe(CoreSubscriber<? super T> actual) {
		this.source.subscribe(new AttemptSubscriber<>(actual, this));
	}

	private static final class AttemptSubscriber<T> implements CoreSubscriber<T>, Subscription, Runnable {

		/** Nothing has come yet. */
		private static final int ACTIVE = 0;

		/** The value has come and was handed on; its completion is still to come. */
		private static final int ANSWERED = 1;

		/** Completed, failed, timed out or cancelled: later signals are dropped. */
		private static final int DONE = 2;

		private static final AtomicIntegerFieldUpdater<AttemptSubscriber> STATE = AtomicIntegerFieldUpdater
			.newUpdater(AttemptSubscriber.class, "state");

		private final CoreSubscriber<? super T> actual;

		private final TimedAttempt<T> parent;

		private @Nullable Subscription upstream;

		private volatile int state;

		/** The armed timeout; written after subscription, read by whichever ends it. */
		private volatile @Nullable Disposable alarm;

		AttemptSubscriber(CoreSubscriber<? super T> actual, TimedAttempt<T> parent) {
			this.actual = actual;
			this.parent = parent;
		}

		@Override
		public Context currentContext() {
			return this.actual.currentContext();
		}

		@Override
		public void onSubscribe(Subscription subscription) {
			if (!Operators.validate(this.upstream, subscription)) {
				return;
			}
			this.upstream = subscription;
			this.actual.onSubscribe(this);
			if (this.state != ACTIVE) {
				// Answered while subscribing: nothing to time.
				return;
			}
			Attempt attempt = this.parent.attempt;
			long timeoutNanos = attempt.timeout().toNanos();
			CoalescingTimer timer = this.parent.timer;
			Disposable alarm = (timer != null) ? timer.scheduleAt(this, attempt.startNanos() + timeoutNanos)
					: this.parent.scheduler.schedule(this, timeoutNanos, TimeUnit.NANOSECONDS);
			this.alarm = alarm;
			// Ended meanwhile on another thread, which may not have seen the alarm yet.
			if (this.state != ACTIVE) {
				alarm.dispose();
			}
		}

		@Override
		public void onNext(T value) {
			if (!STATE.compareAndSet(this, ACTIVE, ANSWERED)) {
				Operators.onNextDropped(value, currentContext());
				return;
			}
			disarm();
			this.parent.run.answered(this.parent.target, this.parent.attempt);
			this.actual.onNext(value);
		}

		@Override
		public void onError(Throwable error) {
			if (STATE.compareAndSet(this, ACTIVE, DONE) || STATE.compareAndSet(this, ANSWERED, DONE)) {
				disarm();
				this.actual.onError(error);
				return;
			}
			Operators.onErrorDropped(error, currentContext());
		}

		@Override
		public void onComplete() {
			if (STATE.compareAndSet(this, ANSWERED, DONE)) {
				this.actual.onComplete();
			}
			else if (STATE.compareAndSet(this, ACTIVE, DONE)) {
				// An empty answer is an answer.
				disarm();
				this.parent.run.answered(this.parent.target, this.parent.attempt);
				this.actual.onComplete();
			}
		}

		/** The alarm: the attempt's timeout has passed without a signal. */
		@Override
		public void run() {
			if (STATE.compareAndSet(this, ACTIVE, DONE)) {
				Subscription upstream = this.upstream;
				if (upstream != null) {
					upstream.cancel();
				}
				Attempt attempt = this.parent.attempt;
				this.actual.onError(new TimeoutException(
						"Attempt on " + attempt.target().name() + " timed out after " + attempt.timeout()));
			}
		}

		@Override
		public void request(long n) {
			Subscription upstream = this.upstream;
			if (upstream != null) {
				upstream.request(n);
			}
		}

		@Override
		public void cancel() {
			Subscription upstream = this.upstream;
			if (STATE.compareAndSet(this, ACTIVE, DONE)) {
				disarm();
				if (upstream != null) {
					upstream.cancel();
				}
				this.parent.run.cancelled(this.parent.target, this.parent.attempt);
				return;
			}
			if (upstream != null) {
				upstream.cancel();
			}
		}

		private void disarm() {
			Disposable alarm = this.alarm;
			if (alarm != null) {
				alarm.dispose();
			}
		}

	}

}
