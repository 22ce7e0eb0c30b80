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
 * @param probers the pod that holds the probe lease of each failure domain being probed
 */
public record FleetState(boolean enabled, boolean connected, String namespace, String pod, @Nullable Instant lastSync,
		Map<String, String> probers) {

	/** Fleet mode off: the pod decides alone. */
	public static final FleetState LOCAL = new FleetState(false, false, "", "", null, Map.of());

}
