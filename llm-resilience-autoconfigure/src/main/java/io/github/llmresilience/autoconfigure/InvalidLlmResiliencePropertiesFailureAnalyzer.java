package io.github.llmresilience.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains invalid {@code llm.resilience.*} configuration at startup, one property per
 * line, the way Boot explains a failed binding.
 */
class InvalidLlmResiliencePropertiesFailureAnalyzer
		extends AbstractFailureAnalyzer<InvalidLlmResiliencePropertiesException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidLlmResiliencePropertiesException cause) {
		StringBuilder description = new StringBuilder("Invalid llm-resilience configuration:\n");
		for (InvalidLlmResiliencePropertiesException.Problem problem : cause.problems()) {
			description.append("\n    Property: ").append(problem.property());
			description.append("\n    Value: ").append(problem.value());
			description.append("\n    Reason: ").append(problem.allowed()).append('\n');
		}
		return new FailureAnalysis(description.toString(),
				"Update your application's configuration so that every property above has an allowed value.", cause);
	}

}
