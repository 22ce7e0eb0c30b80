package io.github.llmresilience.actuate;

import java.time.Instant;
import java.util.List;

import io.github.llmresilience.state.ChainState;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * One chain: its targets now and as configured, and whether any of them can serve.
 *
 * @param targets the ordered target names now
 * @param configuredTargets the ordered target names as configured at startup
 * @param edited whether an operator replaced the list at runtime
 * @param usable whether at least one target could serve a call now
 * @param availableAt the earliest moment a target may serve again; {@code null} when one
 * can now (a breaker held open by an operator counts with its longest open duration: a
 * time to look again, not a promise)
 */
public record ChainDescriptor(List<String> targets, List<String> configuredTargets, boolean edited, boolean usable,
		@Nullable Instant availableAt) implements OperationResponseBody {

	/** As the endpoint shows a chain's state. */
	public static ChainDescriptor of(ChainState chain) {
		return new ChainDescriptor(chain.targets(), chain.configuredTargets(), chain.edited(), chain.usable(),
				chain.availableAt());
	}

}
