package io.github.llmresilience.classify;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import io.github.llmresilience.classify.vendor.BuiltInClassifiers;
import org.jspecify.annotations.Nullable;

/**
 * The classifier for each provider id: the application's own classifiers first, the
 * built-in ones for every other known id.
 */
public final class ProviderClassifiers {

	private final Map<String, ProviderErrorClassifier> byVendor;

	/**
	 * @param custom the application's classifiers; one per provider id, each replacing
	 * the built-in classifier of its id or adding a new id
	 * @param settings the settings of the built-in classifiers
	 * @throws IllegalArgumentException when two custom classifiers claim one provider id
	 */
	public ProviderClassifiers(Collection<? extends ProviderErrorClassifier> custom, ClassifierSettings settings) {
		Map<String, ProviderErrorClassifier> map = new LinkedHashMap<>();
		for (String id : BuiltInClassifiers.PROVIDER_IDS) {
			map.put(id, BuiltInClassifiers.forProvider(id, settings));
		}
		Map<String, ProviderErrorClassifier> seen = new LinkedHashMap<>();
		for (ProviderErrorClassifier classifier : custom) {
			String id = normalize(classifier.provider());
			ProviderErrorClassifier previous = seen.put(id, classifier);
			if (previous != null) {
				throw new IllegalArgumentException("Two classifiers claim provider id '" + id + "': "
						+ previous.getClass().getName() + " and " + classifier.getClass().getName());
			}
			map.put(id, classifier);
		}
		this.byVendor = Collections.unmodifiableMap(map);
	}

	/** Only the built-in classifiers. */
	public static ProviderClassifiers builtIn(ClassifierSettings settings) {
		return new ProviderClassifiers(Set.of(), settings);
	}

	/**
	 * The classifier for a provider id.
	 * @throws IllegalArgumentException for an unknown id; the message lists the known
	 * ones
	 */
	public ProviderErrorClassifier forProvider(String id) {
		ProviderErrorClassifier classifier = this.byVendor.get(normalize(id));
		if (classifier == null) {
			throw new IllegalArgumentException(
					"Unknown LLM provider id '" + id + "'; known ids: " + String.join(", ", providerIds()));
		}
		return classifier;
	}

	/** Whether a provider id has a classifier. */
	public boolean contains(@Nullable String id) {
		return id != null && this.byVendor.containsKey(normalize(id));
	}

	/** Every provider id with a classifier. */
	public Set<String> providerIds() {
		return this.byVendor.keySet();
	}

	private static String normalize(String id) {
		return (id != null) ? id.trim().toLowerCase(Locale.ROOT) : "";
	}

}
