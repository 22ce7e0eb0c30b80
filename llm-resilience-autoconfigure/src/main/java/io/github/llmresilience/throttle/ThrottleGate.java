package io.github.llmresilience.throttle;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import io.github.llmresilience.event.StateChange;
import io.github.llmresilience.event.StateChanges;

/**
 * Gates of the quota scopes ({@code account/model}): a rate limit closes a scope until the
 * vendor's hint (cut to {@code max-wait}; {@code default-wait} without one). There is no
 * probe: when the time passes the scope is usable again, and until then it gets no call.
 */
public final class ThrottleGate {

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
	 * Close a scope after a rate limit.
	 * @param scope the scope
	 * @param hint the vendor's wait, or {@code null}
	 * @param reason the vendor's error type, for the event
	 * @return when the scope opens again
	 */
	public Instant close(Scope scope, Duration hint, String reason) {
		Duration wait = (hint != null) ? hint : this.settings.defaultWait();
		if (wait.compareTo(this.settings.maxWait()) > 0) {
			wait = this.settings.maxWait();
		}
		long until = this.clock.millis() + wait.toMillis();
		long previous;
		do {
			previous = scope.closedUntil;
			if (previous >= until) {
				return Instant.ofEpochMilli(previous);
			}
		}
		while (!scope.extend(previous, until));
		this.events.publish(StateChange.Kind.SCOPE_GATED, scope.key,
				"rate limited" + ((reason != null) ? " (" + reason + ")" : "") + ", gated for " + wait.toMillis()
						+ " ms",
				Instant.ofEpochMilli(until));
		return Instant.ofEpochMilli(until);
	}

	/** Open a scope now (an operator's decision). */
	public void open(String key) {
		Scope scope = this.scopes.get(key);
		if (scope != null && scope.closedUntil > this.clock.millis()) {
			scope.closedUntil = 0;
			this.events.publish(StateChange.Kind.SCOPE_UNGATED, key, "opened by an operator", null);
		}
	}

	/** Whether the scope may be called now. */
	public boolean isOpen(Scope scope) {
		// Every call asks this, and a clock read costs as much as the rest of the check:
		// a scope that is not gated holds 0 and needs none.
		long until = scope.closedUntil;
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

	/** The scopes gated now, with the instant each opens again. */
	public Map<String, Instant> gated() {
		long now = this.clock.millis();
		Map<String, Instant> gated = new TreeMap<>();
		this.scopes.forEach((key, scope) -> {
			long until = scope.closedUntil;
			if (until > now) {
				gated.put(key, Instant.ofEpochMilli(until));
			}
		});
		return gated;
	}

	/** One quota scope. */
	public static final class Scope {

		private static final java.lang.invoke.VarHandle CLOSED_UNTIL;

		static {
			try {
				CLOSED_UNTIL = java.lang.invoke.MethodHandles.lookup()
					.findVarHandle(Scope.class, "closedUntil", long.class);
			}
			catch (ReflectiveOperationException ex) {
				throw new ExceptionInInitializerError(ex);
			}
		}

		private final String key;

		private volatile long closedUntil;

		Scope(String key) {
			this.key = key;
		}

		public String key() {
			return this.key;
		}

		/** When the scope opens again; in the past when it is open. */
		public Instant closedUntil() {
			return Instant.ofEpochMilli(this.closedUntil);
		}

		private boolean extend(long expected, long until) {
			return CLOSED_UNTIL.compareAndSet(this, expected, until);
		}

	}

}
