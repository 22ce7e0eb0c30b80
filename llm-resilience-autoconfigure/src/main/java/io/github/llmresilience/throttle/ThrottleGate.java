package io.github.llmresilience.throttle;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.change.StateChanges;
import org.jspecify.annotations.Nullable;

/**
 * Gates of the quota scopes ({@code account/model}): a rate limit gates a scope until the
 * provider's hint (cut to {@code max-wait}; {@code default-wait} without one or with one
 * below {@code min-wait}). There is no probe: when the time passes the scope is usable
 * again, and until then it gets no call.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public final class ThrottleGate {

	/** An extension of a gate or park by this or less never publishes an event. */
	static final long EXTENSION_MIN_MILLIS = 1000;

	private final Clock clock;

	private final ThrottleSettings settings;

	private final StateChanges events;

	private final Map<String, Scope> scopes = new ConcurrentHashMap<>();

	public ThrottleGate(Clock clock, ThrottleSettings settings, StateChanges events) {
		this.clock = clock;
		this.settings = settings;
		this.events = events;
	}

	public ThrottleSettings settings() {
		return this.settings;
	}

	/** The scope of a key, created on first use; hold on to it, reads are lock-free. */
	public Scope scope(String key) {
		return this.scopes.computeIfAbsent(key, Scope::new);
	}

	/**
	 * Gate a scope after a rate limit. Only a real transition is published: a usable
	 * scope becoming gated, or a gate pushed well past what was announced (see
	 * {@link #isNewsworthyExtension}). The many answers of calls that were in flight when
	 * the limit hit only move the gate, silently: one event per incident, not one per
	 * answer.
	 * @param scope the scope
	 * @param hint the provider's wait, or {@code null}; a hint below {@code min-wait}
	 * counts as none
	 * @param reason the provider's error type, for the event
	 * @return when the scope is released again
	 */
	public Instant gate(Scope scope, @Nullable Duration hint, @Nullable String reason) {
		Duration wait = wait(hint);
		long now = this.clock.millis();
		return gateUntil(scope, now, now + wait.toMillis(),
				"rate limited" + ((reason != null) ? " (" + reason + ")" : ""));
	}

	/**
	 * Gate a scope until the moment another pod of the fleet was told, converted to this
	 * pod's clock. Published as {@link #gate} publishes: transitions only. An end beyond
	 * {@code max-wait} from now is cut to it, whatever the store holds.
	 * @param key the scope's key
	 * @param untilMillis the end, on this pod's clock
	 * @param reason why, as the other pod recorded it
	 */
	public void mirror(String key, long untilMillis, String reason) {
		long now = this.clock.millis();
		long until = Math.min(untilMillis, now + this.settings.maxWait().toMillis());
		if (until > now) {
			gateUntil(scope(key), now, until, reason + ", from the fleet");
		}
	}

	private Instant gateUntil(Scope scope, long now, long until, String cause) {
		long previous;
		long announced;
		synchronized (scope) {
			do {
				previous = scope.gatedUntil;
				if (previous >= until) {
					return Instant.ofEpochMilli(previous);
				}
			}
			// isReleased() forgets a passed gate without the lock: retry if it did just
			// now.
			while (!scope.extend(previous, until));
			announced = scope.announcedUntil;
			if (previous > now && !isNewsworthyExtension(announced, until, now)) {
				return Instant.ofEpochMilli(until);
			}
			scope.announcedUntil = until;
		}
		String detail = (previous > now) ? cause + ", gate extended by " + (until - announced) + " ms"
				: cause + ", gated for " + (until - now) + " ms";
		this.events.publish(StateChange.Kind.SCOPE_GATED, scope.key, detail, Instant.ofEpochMilli(until));
		return Instant.ofEpochMilli(until);
	}

	/**
	 * Whether moving a gate (or park) from the announced end to a later one is worth an
	 * event: by more than {@link #EXTENSION_MIN_MILLIS} and by more than half the time
	 * that was left. In-flight answers of one incident move the end by milliseconds to
	 * seconds and stay silent; a provider that asks for a much longer wait is news to an
	 * operator. Each published extension at least halves the relative change the next one
	 * needs, so one incident yields a handful of events at most, never one per answer.
	 * @param announced the end last published ({@code <= now} when it has passed)
	 * @param until the new end
	 * @param now the current time
	 */
	static boolean isNewsworthyExtension(long announced, long until, long now) {
		long remaining = Math.max(0, announced - now);
		return until - announced > Math.max(EXTENSION_MIN_MILLIS, remaining / 2);
	}

	private Duration wait(@Nullable Duration hint) {
		if (hint == null || hint.compareTo(this.settings.minWait()) < 0) {
			return this.settings.defaultWait();
		}
		return (hint.compareTo(this.settings.maxWait()) > 0) ? this.settings.maxWait() : hint;
	}

	/**
	 * Release a gated scope now (an operator's decision).
	 * @return whether it was gated
	 */
	public boolean release(String key) {
		Scope scope = this.scopes.get(key);
		if (scope != null && scope.gatedUntil > this.clock.millis()) {
			scope.gatedUntil = 0;
			this.events.publish(StateChange.Kind.SCOPE_UNGATED, key, "released by an operator", null);
			return true;
		}
		return false;
	}

	/** Whether the scope is released: it may be called now. */
	public boolean isReleased(Scope scope) {
		// Every call asks this, and a clock read costs as much as the rest of the check:
		// a scope that is not gated holds 0 and needs none.
		long until = scope.gatedUntil;
		if (until == 0) {
			return true;
		}
		if (until > this.clock.millis()) {
			return false;
		}
		// The gate has passed: forget it, unless a new one was set meanwhile.
		scope.extend(until, 0);
		return true;
	}

	/** The scopes gated now, with the instant each is released. */
	public Map<String, Instant> gated() {
		long now = this.clock.millis();
		Map<String, Instant> gated = new TreeMap<>();
		this.scopes.forEach((key, scope) -> {
			long until = scope.gatedUntil;
			if (until > now) {
				gated.put(key, Instant.ofEpochMilli(until));
			}
		});
		return gated;
	}

	/** One quota scope. */
	public static final class Scope {

		private static final VarHandle GATED_UNTIL;

		static {
			try {
				GATED_UNTIL = MethodHandles.lookup().findVarHandle(Scope.class, "gatedUntil", long.class);
			}
			catch (ReflectiveOperationException ex) {
				throw new ExceptionInInitializerError(ex);
			}
		}

		private final String key;

		private volatile long gatedUntil;

		/** The end of the gate last published; guarded by the scope's monitor. */
		private long announcedUntil;

		Scope(String key) {
			this.key = key;
		}

		public String key() {
			return this.key;
		}

		/** When the scope is released again; in the past when it is released. */
		public Instant gatedUntil() {
			return Instant.ofEpochMilli(this.gatedUntil);
		}

		private boolean extend(long expected, long until) {
			return GATED_UNTIL.compareAndSet(this, expected, until);
		}

	}

}
