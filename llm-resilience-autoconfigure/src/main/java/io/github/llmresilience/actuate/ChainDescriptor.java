package io.github.llmresilience.actuate;

import java.time.Instant;
import java.util.List;

import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.target.TargetRegistry;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * One chain: its targets now and as configured, and whether any of them can serve.
 *
 * @param targets the ordered target names now
 * @param configuredTargets the ordered target names as configured at startup
 * @param edited whether an operator replaced the list at runtime
 * @param usable whether at least one target could serve a call now
 * @param availableAt the earliest moment a target may serve again; {@code null} when one
 * can now, or when only an operator can make one usable (breakers forced open)
 */
public record ChainDescriptor(List<String> targets, List<String> configuredTargets, boolean edited, boolean usable,
		Instant availableAt) implements OperationResponseBody {

	/** The state of a chain now. */
	public static ChainDescriptor of(LlmResilience resilience, String name) {
		TargetRegistry registry = resilience.registry();
		List<String> targets = registry.chain(name);
		List<String> configured = registry.configuredChains().getOrDefault(name, List.of());
		boolean usable = targets.stream().anyMatch(resilience::isUsable);
		Instant availableAt = usable ? null : resilience.availableAt(name);
		return new ChainDescriptor(targets, configured, !targets.equals(configured), usable,
				Instant.MAX.equals(availableAt) ? null : availableAt);
	}

}
