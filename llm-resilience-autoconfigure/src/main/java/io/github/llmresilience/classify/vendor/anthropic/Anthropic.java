package io.github.llmresilience.classify.vendor.anthropic;

import java.util.Set;

import io.github.llmresilience.classify.ClassifierSettings;
import io.github.llmresilience.classify.ProviderErrorClassifier;
import io.github.llmresilience.classify.vendor.CanaryFormat;
import io.github.llmresilience.classify.vendor.Finding;
import io.github.llmresilience.classify.vendor.LimitHeaders;
import io.github.llmresilience.classify.vendor.StreamDecoder;
import io.github.llmresilience.classify.vendor.UsageFields;
import io.github.llmresilience.classify.vendor.Vendor;
import io.github.llmresilience.classify.vendor.WaitHeaders;
import org.jspecify.annotations.Nullable;

/**
 * Anthropic's Messages API.
 */
public final class Anthropic implements Vendor {

	/** Anthropic's own API. */
	public static final Vendor ANTHROPIC = new Anthropic();

	/**
	 * {@code anthropic-ratelimit-requests-reset}, {@code -tokens-reset},
	 * {@code -input-tokens-reset}, {@code -output-tokens-reset} as RFC 3339 instants.
	 */
	private static final WaitHeaders WAIT = WaitHeaders.resetInstants("anthropic-ratelimit-", "-reset", "-remaining");

	/**
	 * Per minute; without {@code tokens-limit}, the smaller of the input and output token
	 * limits.
	 */
	private static final LimitHeaders LIMITS = new LimitHeaders("anthropic-ratelimit-requests-limit",
			"anthropic-ratelimit-tokens-limit", "anthropic-ratelimit-input-tokens-limit",
			"anthropic-ratelimit-output-tokens-limit", "anthropic-ratelimit-requests-remaining",
			"anthropic-ratelimit-tokens-remaining");

	/**
	 * {@code usage} of a message (inside {@code message} of the {@code message_start}
	 * event); the cache's input is reported apart from the input.
	 */
	private static final UsageFields USAGE = UsageFields.in(Set.of("usage"),
			Set.of("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"), Set.of("output_tokens"));

	private static final StreamDecoder STREAM = new AnthropicMessageDecoder();

	private Anthropic() {
	}

	/**
	 * Read an error object of Anthropic's shape ({@code {"type", "message", "details":
	 * {"error_code"}}}): Vertex AI and Bedrock serve Claude with it.
	 * @param status the HTTP status (2xx for an error inside a success answer)
	 * @param error the {@code error} object, or {@code null}
	 * @return the reading
	 */
	public static Finding readError(int status, @Nullable Object error) {
		return AnthropicClassifier.read(status, error);
	}

	@Override
	public String id() {
		return "anthropic";
	}

	@Override
	public ProviderErrorClassifier classifier(ClassifierSettings settings) {
		return new AnthropicClassifier(id(), settings);
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
	public CanaryFormat canaryFormat() {
		return AnthropicCanary.INSTANCE;
	}

	@Override
	public StreamDecoder streamDecoder() {
		return STREAM;
	}

	@Override
	public String toString() {
		return id();
	}

}
