package io.github.llmresilience.extract;

import io.github.llmresilience.classify.ProviderResponse;
import org.jspecify.annotations.Nullable;

/**
 * Turns an exception of some client (WebClient, RestClient, a provider SDK) into the
 * {@link ProviderResponse} a classifier reads. Register one as a bean for a client the
 * starter does not know.
 */
@FunctionalInterface
public interface ErrorExtractor {

	/**
	 * @param error an exception (the executor also offers each of its causes)
	 * @return what the provider answered, or {@code null} when this extractor does not
	 * know the exception
	 */
	@Nullable ProviderResponse extract(Throwable error);

}
