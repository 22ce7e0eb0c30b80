package io.github.llmresilience.actuate;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.state.ChainState;
import io.github.llmresilience.state.FleetState;
import io.github.llmresilience.state.ResilienceState;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * Health of the LLM providers behind the application: {@code UP} while every chain has a
 * target that can serve now, otherwise {@link #DEGRADED} (or whichever status it is
 * given), with details per chain and per target.
 *
 * <p>
 * {@code DEGRADED} maps to HTTP 200 and is left out of the aggregate status by default,
 * because a liveness probe must not restart pods for a provider's outage; the details
 * still show which providers are out and why.
 */
public class LlmResilienceHealthIndicator implements HealthIndicator {

	/** Some chain has no target that can serve now; the application still runs. */
	public static final Status DEGRADED = new Status("DEGRADED");

	private final LlmResilience resilience;

	private final Status unavailable;

	/**
	 * @param resilience the executor whose state is reported
	 * @param unavailable the status when some chain has no usable target:
	 * {@link #DEGRADED} or {@link Status#DOWN}
	 */
	public LlmResilienceHealthIndicator(LlmResilience resilience, Status unavailable) {
		this.resilience = Objects.requireNonNull(resilience, "resilience");
		this.unavailable = Objects.requireNonNull(unavailable, "unavailable");
	}

	@Override
	public Health health() {
		ResilienceState state = this.resilience.state();
		Map<String, ChainDescriptor> chains = new LinkedHashMap<>();
		boolean allUsable = true;
		for (ChainState chain : state.chains().values()) {
			chains.put(chain.name(), ChainDescriptor.of(chain));
			allUsable &= chain.usable();
		}
		Map<String, TargetDescriptor> targets = new LinkedHashMap<>();
		state.targets().forEach((name, target) -> targets.put(name, TargetDescriptor.of(target)));
		Health.Builder health = Health.status(allUsable ? Status.UP : this.unavailable)
			.withDetail("chains", chains)
			.withDetail("targets", targets);
		FleetState fleet = state.fleet();
		if (fleet.enabled()) {
			// A lost store never takes the application down: the pod decides alone.
			Map<String, Object> detail = new LinkedHashMap<>();
			detail.put("status", fleet.connected() ? "connected" : "disconnected");
			detail.put("namespace", fleet.namespace());
			detail.put("pod", fleet.pod());
			if (fleet.lastSync() != null) {
				detail.put("lastSync", fleet.lastSync().toString());
			}
			detail.put("domains", fleet.domains());
			health.withDetail("fleet", detail);
		}
		return health.build();
	}

}
