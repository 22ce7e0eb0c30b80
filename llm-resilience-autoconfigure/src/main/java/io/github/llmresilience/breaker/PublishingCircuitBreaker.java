package io.github.llmresilience.breaker;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Resilience4j {@link CircuitBreaker} that tells its own transitions and resets, with
 * no consumer on Resilience4j's event publisher. Once a breaker has any consumer,
 * Resilience4j builds an event stamped with {@code ZonedDateTime.now()} for every
 * recorded call (about 55 ns and 144 B per success), whatever the consumer listens to.
 *
 * <p>
 * A transition asked for ({@code transitionTo*}, {@code reset}) is told by the thread
 * that asked, as Resilience4j tells it: from the state before to the state asked for,
 * nothing when they are the same, a reset after the transition to closed. The moves
 * Resilience4j makes inside a call (open to half-open when a permit is asked for, closed
 * to open and half-open to open or closed when an outcome is recorded) are seen after the
 * call, by comparing the state with the last one told. A call that finds them equal, as
 * every call of a steady breaker does, pays two volatile reads and takes no lock; one
 * that finds a change tells it under the owner's lock, so that each change is told once
 * and in order, and a move a mode makes under that lock is told with the mode's reason by
 * the thread that made it.
 */
final class PublishingCircuitBreaker implements CircuitBreaker {

	private static final Logger logger = LoggerFactory.getLogger(PublishingCircuitBreaker.class);

	/**
	 * Who hears of the changes, in the thread that tells them, under the owner's lock.
	 */
	interface Listener {

		void transitioned(State from, State to);

		/** A reset: the breaker is closed and its window cleared. */
		void reset();

	}

	private final CircuitBreaker delegate;

	private final Object lock;

	private final Listener listener;

	/** The state last told. Written under the lock, read without it. */
	private volatile State told;

	/**
	 * @param delegate the Resilience4j breaker, which nothing else moves
	 * @param lock the owner's lock, under which the owner's own moves run
	 * @param listener who hears of the changes
	 */
	PublishingCircuitBreaker(CircuitBreaker delegate, Object lock, Listener listener) {
		this.delegate = delegate;
		this.lock = lock;
		this.listener = listener;
		this.told = delegate.getState();
	}

	// Calls: Resilience4j may move the breaker inside them.

	@Override
	public boolean tryAcquirePermission() {
		boolean permitted = this.delegate.tryAcquirePermission();
		tellChanges();
		return permitted;
	}

	@Override
	public void acquirePermission() {
		try {
			this.delegate.acquirePermission();
		}
		finally {
			// A refusal may follow a move to half-open whose trials are all taken.
			tellChanges();
		}
	}

	@Override
	public void releasePermission() {
		this.delegate.releasePermission();
	}

	@Override
	public void onError(long duration, TimeUnit durationUnit, Throwable throwable) {
		this.delegate.onError(duration, durationUnit, throwable);
		tellChanges();
	}

	@Override
	public void onSuccess(long duration, TimeUnit durationUnit) {
		this.delegate.onSuccess(duration, durationUnit);
		tellChanges();
	}

	@Override
	public void onResult(long duration, TimeUnit durationUnit, @Nullable Object result) {
		this.delegate.onResult(duration, durationUnit, result);
		tellChanges();
	}

	// Transitions asked for.

	@Override
	public void reset() {
		synchronized (this.lock) {
			tellLocked();
			this.delegate.reset();
			moved(State.CLOSED);
			tell(this.listener::reset);
		}
	}

	@Override
	public void transitionToClosedState() {
		synchronized (this.lock) {
			tellLocked();
			this.delegate.transitionToClosedState();
			moved(State.CLOSED);
		}
	}

	@Override
	public void transitionToOpenState() {
		synchronized (this.lock) {
			tellLocked();
			this.delegate.transitionToOpenState();
			moved(State.OPEN);
		}
	}

	@Override
	public void transitionToOpenStateFor(Duration waitDuration) {
		synchronized (this.lock) {
			tellLocked();
			this.delegate.transitionToOpenStateFor(waitDuration);
			moved(State.OPEN);
		}
	}

	@Override
	public void transitionToOpenStateUntil(Instant waitUntil) {
		synchronized (this.lock) {
			tellLocked();
			this.delegate.transitionToOpenStateUntil(waitUntil);
			moved(State.OPEN);
		}
	}

	@Override
	public void transitionToHalfOpenState() {
		synchronized (this.lock) {
			tellLocked();
			this.delegate.transitionToHalfOpenState();
			moved(State.HALF_OPEN);
		}
	}

	@Override
	public void transitionToDisabledState() {
		synchronized (this.lock) {
			tellLocked();
			this.delegate.transitionToDisabledState();
			moved(State.DISABLED);
		}
	}

	@Override
	public void transitionToMetricsOnlyState() {
		synchronized (this.lock) {
			tellLocked();
			this.delegate.transitionToMetricsOnlyState();
			moved(State.METRICS_ONLY);
		}
	}

	@Override
	public void transitionToForcedOpenState() {
		synchronized (this.lock) {
			tellLocked();
			this.delegate.transitionToForcedOpenState();
			moved(State.FORCED_OPEN);
		}
	}

	// Telling.

	/**
	 * Tell the changes no one has told yet: the moves Resilience4j made inside a call of
	 * any thread. Nothing to tell costs two volatile reads and no lock.
	 */
	void tellChanges() {
		if (this.delegate.getState() != this.told) {
			synchronized (this.lock) {
				tellLocked();
			}
		}
	}

	/**
	 * Tell a transition asked for, which Resilience4j made from the state before (the one
	 * told, all earlier changes told first) to the one asked for, and tells only when
	 * they differ; then what other threads' calls did since. Guarded by the lock.
	 */
	private void moved(State to) {
		State from = this.told;
		if (from != to) {
			this.told = to;
			tell(() -> this.listener.transitioned(from, to));
		}
		tellLocked();
	}

	/**
	 * Tell the moves made inside calls since the last change told. Guarded by the lock.
	 */
	private void tellLocked() {
		State now = this.delegate.getState();
		while (now != this.told) {
			State from = this.told;
			State to = nextStep(from, now);
			this.told = to;
			tell(() -> this.listener.transitioned(from, to));
			now = this.delegate.getState();
		}
	}

	/**
	 * The next step from the state told towards the state now. Inside a call Resilience4j
	 * moves a breaker only along closed → open → half-open → open or closed, and every
	 * other move is told where it is asked for; a change seen late, after other threads'
	 * calls moved the breaker more than once, is told step by step, so that no opening
	 * goes untold (each one grows the next open duration).
	 */
	private static State nextStep(State told, State now) {
		if (told == State.CLOSED && now == State.HALF_OPEN) {
			return State.OPEN;
		}
		if (told == State.OPEN && now == State.CLOSED) {
			return State.HALF_OPEN;
		}
		return now;
	}

	/**
	 * Tell one change. A listener that fails does not fail the call, as Resilience4j logs
	 * and drops the failures of its consumers.
	 */
	private static void tell(Runnable change) {
		try {
			change.run();
		}
		catch (RuntimeException ex) {
			logger.warn("Failed to tell a circuit breaker's change", ex);
		}
	}

	// Reads, straight from Resilience4j.

	@Override
	public String getName() {
		return this.delegate.getName();
	}

	@Override
	public State getState() {
		return this.delegate.getState();
	}

	@Override
	public CircuitBreakerConfig getCircuitBreakerConfig() {
		return this.delegate.getCircuitBreakerConfig();
	}

	@Override
	public Metrics getMetrics() {
		return this.delegate.getMetrics();
	}

	@Override
	public Map<String, String> getTags() {
		return this.delegate.getTags();
	}

	/**
	 * Resilience4j's own publisher, for tooling that listens to every call (its
	 * Micrometer publisher, say); this library registers nothing on it.
	 */
	@Override
	public EventPublisher getEventPublisher() {
		return this.delegate.getEventPublisher();
	}

	@Override
	public long getCurrentTimestamp() {
		return this.delegate.getCurrentTimestamp();
	}

	@Override
	public TimeUnit getTimestampUnit() {
		return this.delegate.getTimestampUnit();
	}

	@Override
	public String toString() {
		return this.delegate.toString();
	}

}
