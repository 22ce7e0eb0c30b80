package io.github.llmresilience.autoconfigure;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Thrown at startup when {@code llm.resilience.*} configuration cannot work. Each problem
 * names the property, the value found (never a secret) and what is allowed.
 */
public class InvalidLlmResiliencePropertiesException extends IllegalStateException {

	private final List<Problem> problems;

	public InvalidLlmResiliencePropertiesException(List<Problem> problems) {
		super("Invalid llm.resilience configuration: "
				+ problems.stream().map(Problem::toString).collect(Collectors.joining("; ")));
		this.problems = List.copyOf(problems);
	}

	public List<Problem> problems() {
		return this.problems;
	}

	/**
	 * One problem.
	 *
	 * @param property the full property name, such as
	 * {@code llm.resilience.chains.chat[1]}
	 * @param value the offending value, as text (never a secret)
	 * @param allowed what would be accepted
	 */
	public record Problem(String property, String value, String allowed) {

		@Override
		public String toString() {
			return this.property + "=" + this.value + " (" + this.allowed + ")";
		}

	}

}
