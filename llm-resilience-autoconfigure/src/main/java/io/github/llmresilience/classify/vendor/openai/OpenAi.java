package io.github.llmresilience.classify.vendor.openai;

import java.util.Set;

import io.github.llmresilience.classify.ClassifierSettings;
import io.github.llmresilience.classify.ProviderErrorClassifier;
import io.github.llmresilience.classify.vendor.CanaryFormat;
import io.github.llmresilience.classify.vendor.LimitHeaders;
import io.github.llmresilience.classify.vendor.StreamDecoder;
import io.github.llmresilience.classify.vendor.UsageFields;
import io.github.llmresilience.classify.vendor.Vendor;
import io.github.llmresilience.classify.vendor.WaitHeaders;
import org.jspecify.annotations.Nullable;

/**
 * OpenAI and the APIs shaped like it, one {@link Vendor} per provider id: they share the
 * error body, the headers, the usage fields and the stream, and differ in how the canary
 * reaches them.
 */
public final class OpenAi implements Vendor {

	/** The Azure OpenAI API version the canary speaks (generally available). */
	public static final String AZURE_API_VERSION = OpenAiCanary.AZURE_API_VERSION;

	/** OpenAI's own API. */
	public static final Vendor OPENAI = new OpenAi("openai", OpenAiCanary.OPENAI);

	/** Azure OpenAI: a deployment in the path, an {@code api-key} header. */
	public static final Vendor AZURE_OPENAI = new OpenAi("azure-openai", OpenAiCanary.AZURE_OPENAI);

	/** Mistral: OpenAI's body, its errors' fields at the top level, numeric codes. */
	public static final Vendor MISTRAL = new OpenAi("mistral", OpenAiCanary.MISTRAL);

	/** Servers that speak OpenAI's API (Groq, DeepSeek, Together, vLLM, ...). */
	public static final Vendor OPENAI_COMPATIBLE = new OpenAi("openai-compatible", OpenAiCanary.COMPATIBLE);

	/**
	 * {@code retry-after-ms}, and {@code x-ratelimit-reset-requests} /
	 * {@code x-ratelimit-reset-tokens} as durations ({@code 6m0s}).
	 */
	private static final WaitHeaders WAIT = WaitHeaders.resetDurations("x-ratelimit-reset-", "x-ratelimit-remaining-")
		.withRetryAfterMillis("retry-after-ms");

	/** Per minute, on every answer (OpenAI and Azure). */
	private static final LimitHeaders LIMITS = new LimitHeaders("x-ratelimit-limit-requests",
			"x-ratelimit-limit-tokens", null, null, "x-ratelimit-remaining-requests", "x-ratelimit-remaining-tokens");

	/**
	 * {@code usage} of chat completions ({@code prompt_tokens},
	 * {@code completion_tokens}) and of the Responses API ({@code input_tokens},
	 * {@code output_tokens}, also inside {@code response} of its
	 * {@code response.completed} event).
	 */
	private static final UsageFields USAGE = UsageFields.in(Set.of("usage"), Set.of("prompt_tokens", "input_tokens"),
			Set.of("completion_tokens", "output_tokens"));

	private static final StreamDecoder STREAM = new OpenAiChatDecoder();

	private final String id;

	private final CanaryFormat canary;

	private OpenAi(String id, CanaryFormat canary) {
		this.id = id;
		this.canary = canary;
	}

	@Override
	public String id() {
		return this.id;
	}

	@Override
	public ProviderErrorClassifier classifier(ClassifierSettings settings) {
		return new OpenAiClassifier(this.id, settings);
	}

	@Override
	public WaitHeaders waitHeaders() {
		return WAIT;
	}

	@Override
	public LimitHeaders limitHeaders() {
		return LIMITS;
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
	public StreamDecoder streamDecoder() {
		return STREAM;
	}

	@Override
	public String toString() {
		return this.id;
	}

}
