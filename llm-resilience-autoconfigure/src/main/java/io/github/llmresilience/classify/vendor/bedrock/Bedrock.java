package io.github.llmresilience.classify.vendor.bedrock;

import java.util.Set;

import io.github.llmresilience.classify.ClassifierSettings;
import io.github.llmresilience.classify.ProviderErrorClassifier;
import io.github.llmresilience.classify.vendor.UsageFields;
import io.github.llmresilience.classify.vendor.Vendor;

/**
 * Amazon Bedrock Runtime.
 */
public final class Bedrock implements Vendor {

	/** Bedrock Runtime. */
	public static final Vendor BEDROCK = new Bedrock();

	/**
	 * Converse's {@code usage} ({@code inputTokens}, {@code outputTokens}); InvokeModel
	 * states the counts in headers only.
	 */
	private static final UsageFields USAGE = UsageFields
		.in(Set.of("usage"), Set.of("inputTokens"), Set.of("outputTokens"))
		.withHeaders("x-amzn-bedrock-input-token-count", "x-amzn-bedrock-output-token-count");

	private Bedrock() {
	}

	@Override
	public String id() {
		return "bedrock";
	}

	@Override
	public ProviderErrorClassifier classifier(ClassifierSettings settings) {
		return new BedrockClassifier(id(), settings);
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
