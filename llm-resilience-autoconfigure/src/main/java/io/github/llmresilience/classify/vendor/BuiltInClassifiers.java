package io.github.llmresilience.classify.vendor;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

import io.github.llmresilience.classify.ClassifierSettings;
import io.github.llmresilience.classify.ProviderErrorClassifier;

/**
 * The classifiers of the {@link Vendors#REGISTERED registered} vendors, by provider id.
 */
public final class BuiltInClassifiers {

	/** Every provider id with a built-in classifier, in registration order. */
	public static final List<String> PROVIDER_IDS = Vendors.REGISTERED.stream().map(Vendor::id).toList();

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
		Vendor vendor = Vendors.find(provider);
		if (vendor == null) {
			throw new IllegalArgumentException(
					"Unknown LLM provider id '" + id + "'; known ids: " + String.join(", ", PROVIDER_IDS));
		}
		return vendor.classifier(settings);
	}

}
