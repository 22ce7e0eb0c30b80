package io.github.llmresilience.classify;

import java.util.List;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Listeners as classifiers and the engine call them: each in turn, each guarded. A
 * listener is an application's bean, called while a breaker permit is held; one that
 * throws must neither take the call down nor keep the other listeners from hearing.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public final class UnclassifiedListeners implements UnclassifiedListener {

	private static final Logger logger = LoggerFactory.getLogger(UnclassifiedListeners.class);

	private final List<UnclassifiedListener> listeners;

	private UnclassifiedListeners(List<UnclassifiedListener> listeners) {
		this.listeners = listeners;
	}

	/**
	 * Every listener in order, each guarded; {@link UnclassifiedListener#NONE} for none.
	 */
	public static UnclassifiedListener of(List<? extends UnclassifiedListener> listeners) {
		if (listeners.isEmpty()) {
			return UnclassifiedListener.NONE;
		}
		return new UnclassifiedListeners(List.copyOf(listeners));
	}

	/** One listener, guarded; already guarded ones are returned as they are. */
	public static UnclassifiedListener guarded(UnclassifiedListener listener) {
		if (listener == UnclassifiedListener.NONE || listener instanceof UnclassifiedListeners) {
			return listener;
		}
		return new UnclassifiedListeners(List.of(listener));
	}

	@Override
	public void unclassified(String provider, int status, @Nullable String errorType) {
		for (UnclassifiedListener listener : this.listeners) {
			try {
				listener.unclassified(provider, status, errorType);
			}
			catch (VirtualMachineError fatal) {
				throw fatal;
			}
			catch (Throwable ex) {
				logger.warn("Unclassified listener {} failed", listener, ex);
			}
		}
	}

	@Override
	public void decidedByRule(String provider, int status, @Nullable String errorType, String rule) {
		for (UnclassifiedListener listener : this.listeners) {
			try {
				listener.decidedByRule(provider, status, errorType, rule);
			}
			catch (VirtualMachineError fatal) {
				throw fatal;
			}
			catch (Throwable ex) {
				logger.warn("Unclassified listener {} failed", listener, ex);
			}
		}
	}

	@Override
	public void unclassified(String provider, int status, @Nullable String errorType, String reason) {
		for (UnclassifiedListener listener : this.listeners) {
			try {
				listener.unclassified(provider, status, errorType, reason);
			}
			catch (VirtualMachineError fatal) {
				throw fatal;
			}
			catch (Throwable ex) {
				logger.warn("Unclassified listener {} failed", listener, ex);
			}
		}
	}

	@Override
	public void decidedByRule(String provider, int status, @Nullable String errorType, String rule, String reason) {
		for (UnclassifiedListener listener : this.listeners) {
			try {
				listener.decidedByRule(provider, status, errorType, rule, reason);
			}
			catch (VirtualMachineError fatal) {
				throw fatal;
			}
			catch (Throwable ex) {
				logger.warn("Unclassified listener {} failed", listener, ex);
			}
		}
	}

}
