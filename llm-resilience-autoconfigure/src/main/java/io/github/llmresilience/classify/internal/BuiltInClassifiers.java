package io.github.llmresilience.classify.internal;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.BiFunction;

import io.github.llmresilience.classify.ClassifierSettings;
import io.github.llmresilience.classify.ProviderErrorClassifier;

/**
 * The classifiers this library ships, by provider id.
 */
public final class BuiltInClassifiers {

	/** Every provider id with a built-in classifier. */
	public static final List<String> PROVIDER_IDS = List.of("openai", "azure-openai", "anthropic", "gemini",
			"vertex-ai", "bedrock", "mistral", "cohere", "openai-compatible");

	private BuiltInClassifiers() {
	}

	/**
	 * The built-in classifier for a provider, with the system clock, a one-hour quota
	 * threshold and no unclassified listener.
	 * @param id a provider id from {@link #PROVIDER_IDS}
	 * @return the classifier
	 * @throws IllegalArgumentException for an unknown id; the message lists the known
	 * ones
	 */
	public static ProviderErrorClassifier forProvider(String id) {
		return forProvider(id, ClassifierSettings.defaults());
	}

	/**
	 * The built-in classifier for a provider.
	 * @param id a provider id from {@link #PROVIDER_IDS}
	 * @param settings clock, quota threshold and unclassified listener
	 * @return the classifier
	 * @throws IllegalArgumentException for an unknown id; the message lists the known
	 * ones
	 */
	public static ProviderErrorClassifier forProvider(String id, ClassifierSettings settings) {
		Objects.requireNonNull(settings, "settings");
		String provider = (id != null) ? id.trim().toLowerCase(Locale.ROOT) : "";
		BiFunction<String, ClassifierSettings, ProviderErrorClassifier> factory = switch (provider) {
			case "openai", "azure-openai", "mistral", "openai-compatible" -> OpenAiClassifier::new;
			case "anthropic" -> AnthropicClassifier::new;
			case "gemini", "vertex-ai" -> GoogleClassifier::new;
			case "bedrock" -> BedrockClassifier::new;
			case "cohere" -> CohereClassifier::new;
			default -> throw new IllegalArgumentException(
					"Unknown LLM provider id '" + id + "'; known ids: " + String.join(", ", PROVIDER_IDS));
		};
		return factory.apply(provider, settings);
	}

}
