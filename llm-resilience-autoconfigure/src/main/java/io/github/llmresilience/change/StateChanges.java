package io.github.llmresilience.change;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where every mechanism reports its state changes: one log line each (WARN when something
 * becomes unusable, INFO when it returns), then every listener.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public final class StateChanges {

	/**
	 * Named for what it logs, not for where the class lives: a name operators configure.
	 */
	static final String LOGGER = "io.github.llmresilience.change";

	private static final Logger logger = LoggerFactory.getLogger(LOGGER);

	private final Clock clock;

	private final List<StateChangeListener> listeners = new CopyOnWriteArrayList<>();

	public StateChanges(Clock clock) {
		this.clock = clock;
	}

	public void addListener(StateChangeListener listener) {
		this.listeners.add(listener);
	}

	public Clock clock() {
		return this.clock;
	}

	public void publish(StateChange.Kind kind, String subject, String detail, @Nullable Instant until) {
		publish(new StateChange(this.clock.instant(), kind, subject, detail, until));
	}

	public void publish(StateChange change) {
		if (change.kind().warns()) {
			logger.warn("llm-resilience {} {}: {}{}", change.kind().tag(), change.subject(), change.detail(),
					(change.until() != null) ? " (until " + change.until() + ")" : "");
		}
		else if (logger.isInfoEnabled()) {
			logger.info("llm-resilience {} {}{}", change.kind().tag(), change.subject(),
					change.detail().isEmpty() ? "" : ": " + change.detail());
		}
		for (StateChangeListener listener : this.listeners) {
			try {
				listener.onStateChange(change);
			}
			catch (RuntimeException ex) {
				logger.warn("State change listener {} failed", listener, ex);
			}
		}
	}

}
