package io.github.llmresilience.classify;

/**
 * Turns one provider answer into a {@link Verdict}. One classifier per provider id; an
 * application registers its own as a bean to handle a provider the starter does not know
 * or to override a built-in one.
 *
 * <p>
 * Implementations must never throw: garbage from a provider yields a verdict.
 */
public interface ProviderErrorClassifier {

	/** The provider id this classifier handles, such as {@code openai}. */
	String provider();

	/**
	 * Classify one answer.
	 * @param response the provider's answer, or the lack of one
	 * @return the verdict, never {@code null}
	 */
	Verdict classify(ProviderResponse response);

}
