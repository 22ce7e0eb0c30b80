package io.github.llmresilience.canary;

import io.github.llmresilience.target.Target;

/**
 * Judges a canary's answer when the judgement is {@link CanarySettings.Judge#PREDICATE}:
 * whether the provider serves what it should (the right facts, a parsable tool call, a
 * given language). The answer reached here came with a success status and a body
 * well-formed for the vendor.
 *
 * <p>
 * A judge that throws fails the trial; it never keeps the breaker from its next one.
 */
@FunctionalInterface
public interface CanaryJudge {

	/**
	 * @param target the target that answered
	 * @param answer the answer's text
	 * @return whether the answer shows the provider serving
	 */
	boolean passes(Target target, String answer);

}
