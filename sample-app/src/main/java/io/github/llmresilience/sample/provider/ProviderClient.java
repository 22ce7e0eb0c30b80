package io.github.llmresilience.sample.provider;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.ProviderClassifiers;
import io.github.llmresilience.classify.ProviderErrorClassifier;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.execute.Attempt;
import io.github.llmresilience.extract.ProviderAnswerException;
import io.github.llmresilience.target.Target;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.stereotype.Component;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Sends one question to one target in its vendor's format, over WebClient. HTTP errors
 * surface as {@code WebClientResponseException}, which llm-resilience classifies by
 * itself; an answer that came back as a 200 but is a refusal (OpenAI's
 * {@code finish_reason: content_filter}, Anthropic's {@code stop_reason: refusal}) is
 * turned into a {@link ProviderAnswerException} so that it is classified too, by the same
 * vendor classifier the library uses.
 */
@Component
public class ProviderClient {

	private static final ParameterizedTypeReference<ServerSentEvent<String>> SSE = new ParameterizedTypeReference<>() {
	};

	private static final Map<String, ChatFormat> FORMATS = Map.of("openai", new OpenAiChatFormat(), "openai-compatible",
			new OpenAiChatFormat(), "mistral", new OpenAiChatFormat(), "anthropic", new AnthropicMessagesFormat());

	private final WebClient http;

	private final JsonMapper json;

	private final ProviderClassifiers classifiers;

	public ProviderClient(WebClient.Builder http, JsonMapper json, ProviderClassifiers classifiers) {
		this.http = http.build();
		this.json = json;
		this.classifiers = classifiers;
	}

	/** The provider ids this client speaks. */
	public static Set<String> supportedProviders() {
		return new TreeSet<>(FORMATS.keySet());
	}

	/**
	 * The text of the attempt's target's answer, sent with the attempt's idempotency key;
	 * the answer's headers and usage are handed to the attempt (for spend, pools and the
	 * provider's processing time).
	 */
	public Mono<String> answer(Attempt attempt, String question) {
		return answer(attempt.target(), question, attempt.idempotencyKey(), attempt);
	}

	/**
	 * The text of the target's answer.
	 * @param idempotencyKey sent as {@code Idempotency-Key}, or {@code null}
	 */
	public Mono<String> answer(Target target, String question, @Nullable String idempotencyKey) {
		return answer(target, question, idempotencyKey, null);
	}

	private Mono<String> answer(Target target, String question, @Nullable String idempotencyKey,
			@Nullable Attempt attempt) {
		ChatFormat format = format(target);
		return this.http.post().uri(url(target, format)).headers((headers) -> {
			format.authenticate(headers, target.apiKey());
			if (idempotencyKey != null) {
				headers.set("Idempotency-Key", idempotencyKey);
			}
		})
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue(format.request(target.model(), question, false))
			.retrieve()
			.toEntity(String.class)
			.map((entity) -> text(target, format, entity, attempt));
	}

	/**
	 * The target's answer as it streams, token by token. An error event or a refusal
	 * inside the stream ends it with a {@link ProviderAnswerException}; a dropped
	 * connection with the transport's exception.
	 */
	public Flux<String> stream(Target target, String question) {
		return stream(target, question, null);
	}

	/**
	 * The attempt's target's answer as it streams: see {@link #stream(Target, String)};
	 * the events that carry usage are handed to the attempt.
	 */
	public Flux<String> stream(Attempt attempt, String question) {
		return stream(attempt.target(), question, attempt);
	}

	private Flux<String> stream(Target target, String question, @Nullable Attempt attempt) {
		ChatFormat format = format(target);
		ProviderErrorClassifier classifier = this.classifiers.forProvider(target.provider());
		return this.http.post()
			.uri(url(target, format))
			.headers((headers) -> format.authenticate(headers, target.apiKey()))
			.contentType(MediaType.APPLICATION_JSON)
			.accept(MediaType.TEXT_EVENT_STREAM)
			.bodyValue(format.request(target.model(), question, true))
			.retrieve()
			.bodyToFlux(SSE)
			.handle((event, sink) -> {
				String data = (event.data() != null) ? event.data() : "";
				ProviderResponse response = ProviderResponse.streamEvent(event.event(), data);
				if (classifier.classify(response).outcome() != Outcome.SUCCESS) {
					sink.error(new ProviderAnswerException(response));
					return;
				}
				if (attempt != null) {
					attempt.answered(response);
				}
				String token = format.token(event.event(), parse(data), data);
				if (token == null) {
					sink.complete();
				}
				else if (!token.isEmpty()) {
					sink.next(token);
				}
			});
	}

	private String text(Target target, ChatFormat format, ResponseEntity<String> entity, @Nullable Attempt attempt) {
		String body = (entity.getBody() != null) ? entity.getBody() : "";
		Map<String, List<String>> headers = new LinkedHashMap<>();
		entity.getHeaders().forEach(headers::put);
		ProviderResponse response = ProviderResponse.of(entity.getStatusCode().value(), headers, body);
		if (this.classifiers.forProvider(target.provider()).classify(response).outcome() != Outcome.SUCCESS) {
			throw new ProviderAnswerException(response);
		}
		if (attempt != null) {
			attempt.answered(headers, body);
		}
		return format.text(this.json.readTree(body));
	}

	private @Nullable JsonNode parse(String data) {
		try {
			return this.json.readTree(data);
		}
		catch (JacksonException ex) {
			return null;
		}
	}

	private static ChatFormat format(Target target) {
		ChatFormat format = FORMATS.get(target.provider());
		if (format == null) {
			throw new IllegalStateException("Target '" + target.name() + "' has provider '" + target.provider()
					+ "', which the sample's client does not speak; it speaks " + supportedProviders());
		}
		return format;
	}

	private static URI url(Target target, ChatFormat format) {
		if (target.baseUrl() == null) {
			throw new IllegalStateException("Target '" + target.name() + "' has no base-url");
		}
		String base = target.baseUrl().toString();
		return URI.create((base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + format.path());
	}

}
