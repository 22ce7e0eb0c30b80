package io.github.llmresilience.canary;

import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

import io.github.llmresilience.classify.vendor.CanaryFormat;
import io.github.llmresilience.classify.vendor.Vendor;
import io.github.llmresilience.classify.vendor.Vendors;
import io.github.llmresilience.target.Secret;
import io.github.llmresilience.target.Target;
import org.jspecify.annotations.Nullable;

/**
 * How the built-in sender asks a vendor one question and reads the answer's text: the
 * {@link Vendor#canaryFormat() canary format} of the target's vendor (today OpenAI chat
 * completions for OpenAI, Azure OpenAI, Mistral and OpenAI-compatible servers, Anthropic
 * messages and Gemini {@code generateContent}). An answer must be well-formed for its
 * vendor, or the canary fails: a degraded tier's empty or malformed 200 is exactly what a
 * canary is for.
 */
final class ChatFormat {

	/** The providers the built-in sender speaks, in registration order. */
	static final List<String> PROVIDERS = Vendors.REGISTERED.stream()
		.filter((vendor) -> vendor.canaryFormat() != null)
		.map(Vendor::id)
		.toList();

	private final CanaryFormat format;

	private ChatFormat(CanaryFormat format) {
		this.format = format;
	}

	/**
	 * The format of a provider id, or {@code null} when the built-in sender does not
	 * speak it.
	 */
	static @Nullable ChatFormat of(String provider) {
		Vendor vendor = Vendors.find(provider);
		CanaryFormat format = (vendor != null) ? vendor.canaryFormat() : null;
		return (format != null) ? new ChatFormat(format) : null;
	}

	/**
	 * The API's base URL: the target's, else the vendor's public one ({@code null} when
	 * the vendor has none: Azure, OpenAI-compatible servers).
	 */
	@Nullable URI baseUrl(Target target) {
		return (target.baseUrl() != null) ? target.baseUrl() : this.format.publicBaseUrl();
	}

	/** Build the request: vendor path, key header, JSON body. */
	HttpRequest request(URI base, Target target, String prompt, int maxTokens, Duration timeout) {
		HttpRequest.Builder request = HttpRequest.newBuilder(uri(base, target))
			.timeout(timeout)
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(this.format.body(target, prompt, maxTokens)));
		this.format.headers(request);
		Secret key = target.apiKey();
		if (key != null) {
			this.format.authorize(request, key);
		}
		return request.build();
	}

	URI uri(URI base, Target target) {
		return this.format.uri(base, target);
	}

	/**
	 * The answer's text in a well-formed body of this vendor.
	 * @param body the parsed body
	 * @return the text, or {@code null} when the body is not this vendor's answer
	 */
	@Nullable String text(Object body) {
		return this.format.text(Objects.requireNonNull(body));
	}

	/** What a well-formed answer is called: {@code OpenAI chat completion}. */
	String vendor() {
		return this.format.answerName();
	}

}
