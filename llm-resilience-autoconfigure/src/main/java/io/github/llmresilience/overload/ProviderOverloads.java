package io.github.llmresilience.overload;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.change.StateChanges;
import org.jspecify.annotations.Nullable;

/**
 * Which providers are marked overloaded, and until when. A mark is set by an answer that
 * speaks for the provider's whole fleet, for its wait hint (cut to {@code max-duration})
 * or {@code default-duration}; it ends by itself when the time passes. Only a transition
 * is published: a provider becoming marked, not the answers of calls in flight that only
 * move the end.
 *
 * <p>
 * Reads on the call path cost one map lookup, and nothing while no provider is marked.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public final class ProviderOverloads {

	private final Clock clock;

	private final OverloadSettings settings;

	private final StateChanges events;

	private final Map<String, Mark> marks = new ConcurrentHashMap<>();

	public ProviderOverloads(Clock clock, OverloadSettings settings, StateChanges events) {
		this.clock = Objects.requireNonNull(clock, "clock");
		this.settings = Objects.requireNonNull(settings, "settings");
		this.events = Objects.requireNonNull(events, "events");
	}

	public OverloadSettings settings() {
		return this.settings;
	}

	/**
	 * Mark a provider overloaded.
	 * @param provider the provider id
	 * @param hint the answer's wait hint, or {@code null}; zero counts as none
	 * @param reason the provider's error type, for the event, or {@code null}
	 * @return when the mark ends, or {@code null} when marking is disabled
	 */
	public @Nullable Instant mark(String provider, @Nullable Duration hint, @Nullable String reason) {
		if (!this.settings.enabled()) {
			return null;
		}
		Duration duration = (hint == null || hint.isZero() || hint.isNegative()) ? this.settings.defaultDuration()
				: hint;
		if (duration.compareTo(this.settings.maxDuration()) > 0) {
			duration = this.settings.maxDuration();
		}
		long now = this.clock.millis();
		long until = now + duration.toMillis();
		String why = "overloaded" + ((reason != null) ? " (" + reason + ")" : "");
		boolean[] transition = new boolean[1];
		Mark mark = this.marks.compute(provider, (key, current) -> {
			if (current == null || current.untilMillis() <= now) {
				transition[0] = true;
				return new Mark(until, why);
			}
			return (until > current.untilMillis()) ? new Mark(until, current.reason()) : current;
		});
		if (transition[0]) {
			this.events.publish(StateChange.Kind.PROVIDER_OVERLOADED, provider,
					why + ": other providers first for " + duration.toMillis() + " ms",
					Instant.ofEpochMilli(mark.untilMillis()));
		}
		return Instant.ofEpochMilli(mark.untilMillis());
	}

	/**
	 * Whether some provider may be marked: {@code false} is certain, {@code true} not.
	 */
	public boolean anyMarked() {
		return !this.marks.isEmpty();
	}

	/** Whether a provider is marked now; forgets a mark whose time has passed. */
	public boolean isOverloaded(String provider, long nowMillis) {
		Mark mark = this.marks.get(provider);
		if (mark == null) {
			return false;
		}
		if (mark.untilMillis() > nowMillis) {
			return true;
		}
		this.marks.remove(provider, mark);
		return false;
	}

	/** Whether a provider is marked now. */
	public boolean isOverloaded(String provider) {
		return isOverloaded(provider, this.clock.millis());
	}

	/**
	 * When a provider's mark ends, or {@code null} when it is not marked at {@code now}.
	 */
	public @Nullable Instant overloadedUntil(String provider, Instant now) {
		Mark mark = this.marks.get(provider);
		return (mark != null && mark.untilMillis() > now.toEpochMilli()) ? Instant.ofEpochMilli(mark.untilMillis())
				: null;
	}

	/** Why a provider is marked, or {@code null} when it is not marked at {@code now}. */
	public @Nullable String reason(String provider, Instant now) {
		Mark mark = this.marks.get(provider);
		return (mark != null && mark.untilMillis() > now.toEpochMilli()) ? mark.reason() : null;
	}

	private record Mark(long untilMillis, String reason) {
	}

}
