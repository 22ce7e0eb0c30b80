package io.github.llmresilience.state;

import java.time.Instant;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Whether this pod shares state with a fleet, and how that goes.
 *
 * @param enabled whether fleet mode is on
 * @param connected whether the last sync with the fleet's store succeeded
 * @param namespace the fleet's namespace, or empty when fleet mode is off
 * @param pod this pod's id in the fleet, or empty
 * @param lastSync when the last sync succeeded, or {@code null}
 * @param domains each failure domain as the fleet judged it at the last sync, by domain
 */
public record FleetState(boolean enabled, boolean connected, String namespace, String pod, @Nullable Instant lastSync,
		Map<String, Domain> domains) {

	/** Fleet mode off: the pod decides alone. */
	public static final FleetState LOCAL = new FleetState(false, false, "", "", null, Map.of());

	/**
	 * One failure domain as the whole fleet sees it (a pod's own breaker counts only its
	 * own calls).
	 *
	 * @param status {@code closed}, {@code open}, {@code forced-open} or {@code disabled}
	 * @param calls the fleet's calls in its window
	 * @param failures the fleet's failures in its window
	 * @param slowCalls the fleet's slow calls in its window
	 * @param openings consecutive openings without a close
	 * @param prober the pod that holds the probe lease, or empty
	 * @param reason why the status last changed, such as the fleet's rates when it opened
	 */
	public record Domain(String status, long calls, long failures, long slowCalls, int openings, String prober,
			String reason) {

	}

}
