package io.github.llmresilience.classify.vendor.google;

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
 * {@code POST /v1beta/models/{model}:generateContent}; the text parts of the first
 * candidate.
 */
final class GeminiCanary implements CanaryFormat {

	static final CanaryFormat INSTANCE = new GeminiCanary();

	private GeminiCanary() {
	}

	@Override
	public URI publicBaseUrl() {
		return URI.create("https://generativelanguage.googleapis.com");
	}

	@Override
	public URI uri(URI base, Target target) {
		return CanaryFormat.join(base,
				"/v1beta/models/" + URLEncoder.encode(target.model(), StandardCharsets.UTF_8) + ":generateContent");
	}

	@Override
	public void authorize(HttpRequest.Builder request, Secret key) {
		request.header("x-goog-api-key", key.reveal());
	}

	@Override
	public String body(Target target, String prompt, int maxTokens) {
		return "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":" + CanaryFormat.quote(prompt)
				+ "}]}],\"generationConfig\":{\"maxOutputTokens\":" + maxTokens + "}}";
	}

	@Override
	public @Nullable String text(Object body) {
		List<Object> candidates = CanaryFormat.elements(CanaryFormat.member(body, "candidates"));
		if (candidates.isEmpty()) {
			return null;
		}
		Object parts = CanaryFormat.member(CanaryFormat.member(candidates.get(0), "content"), "parts");
		return CanaryFormat.joinText(CanaryFormat.elements(parts), null, null);
	}

	@Override
	public String answerName() {
		return "Gemini generateContent answer";
	}

}
