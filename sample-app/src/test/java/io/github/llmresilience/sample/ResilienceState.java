package io.github.llmresilience.sample;

import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.state.Operator;

/**
 * Puts llm-resilience back to a clean slate between tests that share an application
 * context: breakers closed and emptied, scopes released, accounts neither parked nor
 * locked.
 */
public final class ResilienceState {

	private ResilienceState() {
	}

	public static void reset(LlmResilience resilience) {
		Operator operator = resilience.operator();
		io.github.llmresilience.state.ResilienceState state = resilience.state();
		state.targets().keySet().forEach(operator::reset);
		state.scopes().keySet().forEach(operator::release);
		state.accounts().keySet().forEach((account) -> {
			operator.unpark(account);
			operator.unlock(account);
		});
	}

}
