package io.github.llmresilience.classify.vendor.google;

import java.util.Set;

import io.github.llmresilience.classify.ClassifierSettings;
import io.github.llmresilience.classify.ProviderErrorClassifier;
import io.github.llmresilience.classify.vendor.CanaryFormat;
import io.github.llmresilience.classify.vendor.UsageFields;
import io.github.llmresilience.classify.vendor.Vendor;
import org.jspecify.annotations.Nullable;

/**
 * Google's Gemini API and Vertex AI: one error body and usage, two provider ids (Vertex
 * AI also reads its shared pool's exhaustion as the provider's, and the canary speaks
 * only the Gemini API).
 */
public final class Google implements Vendor {

	/** The Gemini API. */
	public static final Vendor GEMINI = new Google("gemini", GeminiCanary.INSTANCE);

	/** Vertex AI. */
	public static final Vendor VERTEX_AI = new Google("vertex-ai", null);

	/**
	 * {@code usageMetadata}; tool-use prompts and thoughts are reported apart from the
	 * prompt and the candidates.
	 */
	private static final UsageFields USAGE = UsageFields.in(Set.of("usageMetadata"),
			Set.of("promptTokenCount", "toolUsePromptTokenCount"),
			Set.of("candidatesTokenCount", "thoughtsTokenCount"));

	private final String id;

	private final @Nullable CanaryFormat canary;

	private Google(String id, @Nullable CanaryFormat canary) {
		this.id = id;
		this.canary = canary;
	}

	@Override
	public String id() {
		return this.id;
	}

	@Override
	public ProviderErrorClassifier classifier(ClassifierSettings settings) {
		return new GoogleClassifier(this.id, settings);
	}

	@Override
	public UsageFields usageFields() {
		return USAGE;
	}

	@Override
	public @Nullable CanaryFormat canaryFormat() {
		return this.canary;
	}

	@Override
	public String toString() {
		return this.id;
	}

}
