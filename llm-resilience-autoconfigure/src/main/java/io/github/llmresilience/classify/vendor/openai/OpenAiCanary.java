package io.github.llmresilience.classify.vendor.openai;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.List;

import io.github.llmresilience.classify.vendor.CanaryFormat;
import io.github.llmresilience.target.Secret;
import io.github.llmresilience.target.Target;
import org.jspecify.annotations.Nullable;

/**
 * The canary's question as OpenAI chat completions ({@code POST /v1/chat/completions},
 * bearer key; the text of the first choice), and as Azure OpenAI's (the deployment in the
 * path, an {@code api-key} header; the same answer).
 */
final class OpenAiCanary implements CanaryFormat {

	/** The Azure OpenAI API version the canary speaks (generally available). */
	static final String AZURE_API_VERSION = "2024-10-21";

	static final CanaryFormat OPENAI = new OpenAiCanary("https://api.openai.com");

	static final CanaryFormat MISTRAL = new OpenAiCanary("https://api.mistral.ai");

	static final CanaryFormat COMPATIBLE = new OpenAiCanary(null);

	static final CanaryFormat AZURE_OPENAI = new Azure();

	private final @Nullable String publicBaseUrl;

	private OpenAiCanary(@Nullable String publicBaseUrl) {
		this.publicBaseUrl = publicBaseUrl;
	}

	@Override
	public @Nullable URI publicBaseUrl() {
		return (this.publicBaseUrl != null) ? URI.create(this.publicBaseUrl) : null;
	}

	@Override
	public URI uri(URI base, Target target) {
		return CanaryFormat.join(base, "/v1/chat/completions");
	}

	@Override
	public void authorize(HttpRequest.Builder request, Secret key) {
		request.header("Authorization", "Bearer " + key.reveal());
	}

	@Override
	public String body(Target target, String prompt, int maxTokens) {
		return "{\"model\":" + CanaryFormat.quote(target.model()) + ",\"max_tokens\":" + maxTokens
				+ ",\"messages\":[{\"role\":\"user\",\"content\":" + CanaryFormat.quote(prompt) + "}]}";
	}

	@Override
	public @Nullable String text(Object body) {
		return firstChoice(body);
	}

	@Override
	public String answerName() {
		return "OpenAI chat completion";
	}

	static @Nullable String firstChoice(Object body) {
		List<Object> choices = CanaryFormat.elements(CanaryFormat.member(body, "choices"));
		if (choices.isEmpty()) {
			return null;
		}
		Object content = CanaryFormat.member(CanaryFormat.member(choices.get(0), "message"), "content");
		return (content instanceof String text) ? text : null;
	}

	/** Azure OpenAI: the deployment (the target's model) in the path. */
	private static final class Azure implements CanaryFormat {

		@Override
		public @Nullable URI publicBaseUrl() {
			return null;
		}

		@Override
		public URI uri(URI base, Target target) {
			return CanaryFormat.join(base,
					"/openai/deployments/" + URLEncoder.encode(target.model(), StandardCharsets.UTF_8)
							+ "/chat/completions?api-version=" + AZURE_API_VERSION);
		}

		@Override
		public void authorize(HttpRequest.Builder request, Secret key) {
			request.header("api-key", key.reveal());
		}

		@Override
		public String body(Target target, String prompt, int maxTokens) {
			return "{\"max_tokens\":" + maxTokens + ",\"messages\":[{\"role\":\"user\",\"content\":"
					+ CanaryFormat.quote(prompt) + "}]}";
		}

		@Override
		public @Nullable String text(Object body) {
			return firstChoice(body);
		}

		@Override
		public String answerName() {
			return "Azure OpenAI chat completion";
		}

	}

}
