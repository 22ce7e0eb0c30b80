package io.github.llmresilience.execute;

import java.time.Duration;

import io.github.llmresilience.breaker.Breaker;
import io.github.llmresilience.classify.ProviderErrorClassifier;
import io.github.llmresilience.retry.RetryBudget;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.throttle.Accounts.AccountStatus;
import io.github.llmresilience.throttle.ThrottleGate;
import io.github.llmresilience.timeout.MeasuredTimeout;

/**
 * Everything one call needs about a target, resolved once at startup so that the hot path
 * does no lookups: its classifier, its failure domain's breaker, its quota scope, its
 * account, its retry budget and its measured timeouts.
 */
record TargetRuntime(Target target, ProviderErrorClassifier classifier, Breaker breaker, ThrottleGate.Scope scope,
		AccountStatus account, RetryBudget budget, MeasuredTimeout attemptTimeout, MeasuredTimeout firstTokenTimeout,
		Duration stall) {

	String name() {
		return this.target.name();
	}

}
