package io.github.llmresilience.classify;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.BiFunction;

/**
 * The classifiers this library ships, by vendor id.
 */
public final class BuiltInClassifiers {

	/** Every vendor id with a built-in classifier. */
	public static final List<String> VENDOR_IDS = List.of("openai", "azure-openai", "anthropic", "gemini",
			"vertex-ai", "bedrock", "mistral", "cohere", "openai-compatible");

	private BuiltInClassifiers() {
	}

	/**
	 * The built-in classifier for a vendor, with the system clock, a one-hour quota
	 * threshold and no unclassified listener.
	 * @param id a vendor id from {@link #VENDOR_IDS}
	 * @return the classifier
	 * @throws IllegalArgumentException for an unknown id; the message lists the known ones
	 */
	public static ProviderErrorClassifier forVendor(String id) {
		return forVendor(id, ClassifierSettings.defaults());
	}

	/**
	 * The built-in classifier for a vendor.
	 * @param id a vendor id from {@link #VENDOR_IDS}
	 * @param settings clock, quota threshold and unclassified listener
	 * @return the classifier
	 * @throws IllegalArgumentException for an unknown id; the message lists the known ones
	 */
	public static ProviderErrorClassifier forVendor(String id, ClassifierSettings settings) {
		Objects.requireNonNull(settings, "settings");
		String vendor = (id != null) ? id.trim().toLowerCase(Locale.ROOT) : "";
		BiFunction<String, ClassifierSettings, ProviderErrorClassifier> factory = switch (vendor) {
			case "openai", "azure-openai", "mistral", "openai-compatible" -> OpenAiClassifier::new;
			case "anthropic" -> AnthropicClassifier::new;
			case "gemini", "vertex-ai" -> GoogleClassifier::new;
			case "bedrock" -> BedrockClassifier::new;
			case "cohere" -> CohereClassifier::new;
			default -> throw new IllegalArgumentException(
					"Unknown LLM vendor id '" + id + "'; known ids: " + String.join(", ", VENDOR_IDS));
		};
		return factory.apply(vendor, settings);
	}

}
