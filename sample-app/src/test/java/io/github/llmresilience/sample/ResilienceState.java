package io.github.llmresilience.sample;

import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.throttle.Accounts;
import io.github.llmresilience.throttle.ThrottleGate;

/**
 * Puts llm-resilience back to a clean slate between tests that share an application
 * context: breakers closed and emptied, gates open, accounts neither parked nor locked.
 */
public final class ResilienceState {

	private ResilienceState() {
	}

	public static void reset(LlmResilience resilience) {
		resilience.breakers().all().forEach((breaker) -> breaker.circuitBreaker().reset());
		ThrottleGate gate = resilience.gate();
		gate.gated().keySet().forEach(gate::open);
		Accounts accounts = resilience.accounts();
		accounts.all().forEach((account) -> {
			accounts.unpark(account.name());
			accounts.unlock(account.name());
		});
	}

}
