package io.github.llmresilience.classify.vendor.cohere;

import java.util.Set;

import io.github.llmresilience.classify.ClassifierSettings;
import io.github.llmresilience.classify.ProviderErrorClassifier;
import io.github.llmresilience.classify.vendor.UsageFields;
import io.github.llmresilience.classify.vendor.Vendor;

/**
 * Cohere.
 */
public final class Cohere implements Vendor {

	/** Cohere's API. */
	public static final Vendor COHERE = new Cohere();

	/**
	 * v2's {@code usage}, whose {@code billed_units} count rather than its
	 * {@code tokens}; v1's {@code meta.billed_units}.
	 */
	private static final UsageFields USAGE = UsageFields
		.in(Set.of("usage"), Set.of("input_tokens"), Set.of("output_tokens"))
		.withNested("billed_units", "meta")
		.withPreferred("billed_units");

	private Cohere() {
	}

	@Override
	public String id() {
		return "cohere";
	}

	@Override
	public ProviderErrorClassifier classifier(ClassifierSettings settings) {
		return new CohereClassifier(id(), settings);
	}

	@Override
	public UsageFields usageFields() {
		return USAGE;
	}

	@Override
	public String toString() {
		return id();
	}

}
