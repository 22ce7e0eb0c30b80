package io.github.llmresilience.classify.vendor.anthropic;

import java.net.URI;
import java.net.http.HttpRequest;

import io.github.llmresilience.classify.vendor.CanaryFormat;
import io.github.llmresilience.target.Secret;
import io.github.llmresilience.target.Target;
import org.jspecify.annotations.Nullable;

/** {@code POST /v1/messages}; the text blocks of the message's content. */
final class AnthropicCanary implements CanaryFormat {

	static final CanaryFormat INSTANCE = new AnthropicCanary();

	private AnthropicCanary() {
	}

	@Override
	public URI publicBaseUrl() {
		return URI.create("https://api.anthropic.com");
	}

	@Override
	public URI uri(URI base, Target target) {
		return CanaryFormat.join(base, "/v1/messages");
	}

	@Override
	public void authorize(HttpRequest.Builder request, Secret key) {
		request.header("x-api-key", key.reveal());
	}

	@Override
	public void headers(HttpRequest.Builder request) {
		request.header("anthropic-version", "2023-06-01");
	}

	@Override
	public String body(Target target, String prompt, int maxTokens) {
		return "{\"model\":" + CanaryFormat.quote(target.model()) + ",\"max_tokens\":" + maxTokens
				+ ",\"messages\":[{\"role\":\"user\",\"content\":" + CanaryFormat.quote(prompt) + "}]}";
	}

	@Override
	public @Nullable String text(Object body) {
		if (!"message".equals(CanaryFormat.member(body, "type"))) {
			return null;
		}
		return CanaryFormat.joinText(CanaryFormat.elements(CanaryFormat.member(body, "content")), "type", "text");
	}

	@Override
	public String answerName() {
		return "Anthropic message";
	}

}
