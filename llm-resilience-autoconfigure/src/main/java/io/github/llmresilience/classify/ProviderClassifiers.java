package io.github.llmresilience.classify;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The classifier for each vendor id: the application's own classifiers first, the
 * built-in ones for every other known id.
 */
public final class ProviderClassifiers {

	private final Map<String, ProviderErrorClassifier> byVendor;

	/**
	 * @param custom the application's classifiers; one per vendor id, each replacing the
	 * built-in classifier of its id or adding a new id
	 * @param settings the settings of the built-in classifiers
	 * @throws IllegalArgumentException when two custom classifiers claim one vendor id
	 */
	public ProviderClassifiers(Collection<? extends ProviderErrorClassifier> custom, ClassifierSettings settings) {
		Map<String, ProviderErrorClassifier> map = new LinkedHashMap<>();
		for (String id : BuiltInClassifiers.VENDOR_IDS) {
			map.put(id, BuiltInClassifiers.forVendor(id, settings));
		}
		Map<String, ProviderErrorClassifier> seen = new LinkedHashMap<>();
		for (ProviderErrorClassifier classifier : custom) {
			String id = normalize(classifier.vendor());
			ProviderErrorClassifier previous = seen.put(id, classifier);
			if (previous != null) {
				throw new IllegalArgumentException("Two classifiers claim vendor id '" + id + "': "
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
	 * The classifier for a vendor id.
	 * @throws IllegalArgumentException for an unknown id; the message lists the known ones
	 */
	public ProviderErrorClassifier forVendor(String id) {
		ProviderErrorClassifier classifier = this.byVendor.get(normalize(id));
		if (classifier == null) {
			throw new IllegalArgumentException(
					"Unknown LLM vendor id '" + id + "'; known ids: " + String.join(", ", vendorIds()));
		}
		return classifier;
	}

	/** Whether a vendor id has a classifier. */
	public boolean contains(String id) {
		return id != null && this.byVendor.containsKey(normalize(id));
	}

	/** Every vendor id with a classifier. */
	public Set<String> vendorIds() {
		return this.byVendor.keySet();
	}

	private static String normalize(String id) {
		return (id != null) ? id.trim().toLowerCase(Locale.ROOT) : "";
	}

}
