package io.github.llmresilience.canary.internal;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import io.github.llmresilience.target.Secret;
import io.github.llmresilience.target.Target;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.io.JsonStringEncoder;

/**
 * How the built-in sender asks a vendor one question and reads the answer's text: OpenAI
 * chat completions (OpenAI, Azure OpenAI, Mistral, OpenAI-compatible servers), Anthropic
 * messages and Gemini {@code generateContent}. An answer must be well-formed for its
 * vendor, or the canary fails: a degraded tier's empty or malformed 200 is exactly what a
 * canary is for.
 */
enum ChatFormat {

	/** {@code POST /v1/chat/completions}, bearer key; the text of the first choice. */
	OPENAI("https://api.openai.com") {

		@Override
		URI uri(URI base, Target target) {
			return join(base, "/v1/chat/completions");
		}

		@Override
		void authorize(HttpRequest.Builder request, Secret key) {
			request.header("Authorization", "Bearer " + key.reveal());
		}

		@Override
		String body(Target target, String prompt, int maxTokens) {
			return "{\"model\":" + quote(target.model()) + ",\"max_tokens\":" + maxTokens
					+ ",\"messages\":[{\"role\":\"user\",\"content\":" + quote(prompt) + "}]}";
		}

		@Override
		@Nullable String text(Object body) {
			List<Object> choices = StrictJson.elements(StrictJson.member(body, "choices"));
			if (choices.isEmpty()) {
				return null;
			}
			Object content = StrictJson.member(StrictJson.member(choices.get(0), "message"), "content");
			return (content instanceof String text) ? text : null;
		}

	},

	/**
	 * Azure OpenAI: the deployment (the target's model) in the path, an {@code api-key}
	 * header; the answer is OpenAI's.
	 */
	AZURE_OPENAI(null) {

		@Override
		URI uri(URI base, Target target) {
			return join(base, "/openai/deployments/" + URLEncoder.encode(target.model(), StandardCharsets.UTF_8)
					+ "/chat/completions?api-version=" + AZURE_API_VERSION);
		}

		@Override
		void authorize(HttpRequest.Builder request, Secret key) {
			request.header("api-key", key.reveal());
		}

		@Override
		String body(Target target, String prompt, int maxTokens) {
			return "{\"max_tokens\":" + maxTokens + ",\"messages\":[{\"role\":\"user\",\"content\":" + quote(prompt)
					+ "}]}";
		}

		@Override
		@Nullable String text(Object body) {
			return OPENAI.text(body);
		}

	},

	/** {@code POST /v1/messages}; the text blocks of the message's content. */
	ANTHROPIC("https://api.anthropic.com") {

		@Override
		URI uri(URI base, Target target) {
			return join(base, "/v1/messages");
		}

		@Override
		void authorize(HttpRequest.Builder request, Secret key) {
			request.header("x-api-key", key.reveal());
		}

		@Override
		void headers(HttpRequest.Builder request) {
			request.header("anthropic-version", "2023-06-01");
		}

		@Override
		String body(Target target, String prompt, int maxTokens) {
			return "{\"model\":" + quote(target.model()) + ",\"max_tokens\":" + maxTokens
					+ ",\"messages\":[{\"role\":\"user\",\"content\":" + quote(prompt) + "}]}";
		}

		@Override
		@Nullable String text(Object body) {
			if (!"message".equals(StrictJson.member(body, "type"))) {
				return null;
			}
			return joinText(StrictJson.elements(StrictJson.member(body, "content")), "type", "text");
		}

	},

	/**
	 * {@code POST /v1beta/models/{model}:generateContent}; the text parts of the first
	 * candidate.
	 */
	GEMINI("https://generativelanguage.googleapis.com") {

		@Override
		URI uri(URI base, Target target) {
			return join(base,
					"/v1beta/models/" + URLEncoder.encode(target.model(), StandardCharsets.UTF_8) + ":generateContent");
		}

		@Override
		void authorize(HttpRequest.Builder request, Secret key) {
			request.header("x-goog-api-key", key.reveal());
		}

		@Override
		String body(Target target, String prompt, int maxTokens) {
			return "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":" + quote(prompt)
					+ "}]}],\"generationConfig\":{\"maxOutputTokens\":" + maxTokens + "}}";
		}

		@Override
		@Nullable String text(Object body) {
			List<Object> candidates = StrictJson.elements(StrictJson.member(body, "candidates"));
			if (candidates.isEmpty()) {
				return null;
			}
			Object parts = StrictJson.member(StrictJson.member(candidates.get(0), "content"), "parts");
			return joinText(StrictJson.elements(parts), null, null);
		}

	};

	/** The Azure OpenAI API version the canary speaks (generally available). */
	static final String AZURE_API_VERSION = "2024-10-21";

	private final @Nullable String defaultBaseUrl;

	ChatFormat(@Nullable String defaultBaseUrl) {
		this.defaultBaseUrl = defaultBaseUrl;
	}

	/**
	 * The format of a provider id, or {@code null} when the built-in sender does not
	 * speak it.
	 */
	static @Nullable ChatFormat of(String provider) {
		return switch (provider) {
			case "openai", "openai-compatible", "mistral" -> OPENAI;
			case "azure-openai" -> AZURE_OPENAI;
			case "anthropic" -> ANTHROPIC;
			case "gemini" -> GEMINI;
			default -> null;
		};
	}

	/** The providers the built-in sender speaks. */
	static final List<String> PROVIDERS = List.of("openai", "azure-openai", "openai-compatible", "mistral", "anthropic",
			"gemini");

	/**
	 * The API's base URL: the target's, else the vendor's public one ({@code null} when
	 * the vendor has none: Azure, OpenAI-compatible servers).
	 */
	@Nullable URI baseUrl(Target target) {
		if (target.baseUrl() != null) {
			return target.baseUrl();
		}
		if (target.provider().equals("mistral")) {
			return URI.create("https://api.mistral.ai");
		}
		if (target.provider().equals("openai-compatible")) {
			return null;
		}
		return (this.defaultBaseUrl != null) ? URI.create(this.defaultBaseUrl) : null;
	}

	/** Build the request: vendor path, key header, JSON body. */
	HttpRequest request(URI base, Target target, String prompt, int maxTokens, Duration timeout) {
		HttpRequest.Builder request = HttpRequest.newBuilder(uri(base, target))
			.timeout(timeout)
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body(target, prompt, maxTokens)));
		headers(request);
		Secret key = target.apiKey();
		if (key != null) {
			authorize(request, key);
		}
		return request.build();
	}

	abstract URI uri(URI base, Target target);

	abstract void authorize(HttpRequest.Builder request, Secret key);

	void headers(HttpRequest.Builder request) {
	}

	abstract String body(Target target, String prompt, int maxTokens);

	/**
	 * The answer's text in a well-formed body of this vendor.
	 * @param body the parsed body
	 * @return the text, or {@code null} when the body is not this vendor's answer
	 */
	abstract @Nullable String text(Object body);

	/** A display name for events: {@code OpenAI}, {@code Anthropic}. */
	String vendor() {
		return switch (this) {
			case OPENAI -> "OpenAI chat completion";
			case AZURE_OPENAI -> "Azure OpenAI chat completion";
			case ANTHROPIC -> "Anthropic message";
			case GEMINI -> "Gemini generateContent answer";
		};
	}

	private static URI join(URI base, String path) {
		String text = base.toString();
		while (text.endsWith("/")) {
			text = text.substring(0, text.length() - 1);
		}
		return URI.create(text + path);
	}

	/**
	 * The text of the parts that have it, joined; {@code null} when none has (parts of
	 * another type are skipped when a type is given).
	 */
	private static @Nullable String joinText(List<Object> parts, @Nullable String typeKey, @Nullable String typeValue) {
		StringBuilder text = null;
		for (Object part : parts) {
			if (typeKey != null && !typeValue.equals(StrictJson.member(part, typeKey))) {
				continue;
			}
			if (StrictJson.member(part, "text") instanceof String piece) {
				text = (text != null) ? text.append(piece) : new StringBuilder(piece);
			}
		}
		return (text != null) ? text.toString() : null;
	}

	/** A JSON string literal, escaped by Jackson. */
	static String quote(String value) {
		StringBuilder quoted = new StringBuilder(value.length() + 2).append('"');
		JsonStringEncoder.getInstance().quoteAsString(value, quoted);
		return quoted.append('"').toString();
	}

}
