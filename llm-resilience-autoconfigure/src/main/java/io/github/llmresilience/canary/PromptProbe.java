package io.github.llmresilience.canary;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.extract.ProviderAnswerException;
import io.github.llmresilience.target.Target;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * The built-in canary sender: the configured prompt, in the target's vendor format, to
 * its base URL with its API key, on the JDK's {@link HttpClient} (non-blocking
 * {@code sendAsync}: no thread waits for the answer, and the core needs no Spring HTTP
 * client). The answer must come with a 2xx status and a body well-formed for the vendor;
 * its text is what the judgement reads. An error status is handed on with its headers and
 * body, for the target's classifier to read as it reads a call's.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public final class PromptProbe implements CanaryProbe {

	/** The longest answer read: a canary asks for a few tokens. */
	static final int MAX_ANSWER_BYTES = 256 * 1024;

	private final HttpClient client;

	public PromptProbe() {
		this(HttpClient.newBuilder()
			.connectTimeout(Duration.ofSeconds(10))
			.followRedirects(HttpClient.Redirect.NEVER)
			.build());
	}

	PromptProbe(HttpClient client) {
		this.client = client;
	}

	/**
	 * Why the built-in sender cannot send a target's canary, or {@code null} when it can.
	 * @param target the target
	 * @return the reason, naming what is missing
	 */
	public static @Nullable String unsupported(Target target) {
		ChatFormat format = ChatFormat.of(target.provider());
		if (format == null) {
			return "the built-in canary speaks " + String.join(", ", ChatFormat.PROVIDERS) + ", not '"
					+ target.provider() + "'; define a CanaryProbe bean to send it";
		}
		if (format.baseUrl(target) == null) {
			return "a canary prompt for provider '" + target.provider() + "' needs the target's base-url";
		}
		return null;
	}

	@Override
	public Mono<String> probe(CanaryRequest request) {
		Target target = request.target();
		String prompt = request.prompt();
		ChatFormat format = ChatFormat.of(target.provider());
		URI base = (format != null) ? format.baseUrl(target) : null;
		if (format == null || base == null || prompt == null) {
			return Mono.error(new CanaryFailure("no prompt to send to provider '" + target.provider() + "'"));
		}
		HttpRequest http = format.request(base, target, prompt, request.maxTokens(), request.timeout());
		return Mono.<HttpResponse<byte @Nullable []>>create((sink) -> {
			CompletableFuture<HttpResponse<byte @Nullable []>> exchange = this.client.sendAsync(http,
					PromptProbe::bounded);
			AtomicBoolean cancelled = new AtomicBoolean();
			// Cut at the canary's timeout: abort the exchange, whose failure then has no
			// one to tell (Reactor would log it as dropped).
			sink.onCancel(() -> {
				cancelled.set(true);
				exchange.cancel(true);
			});
			exchange.whenComplete((response, error) -> {
				if (cancelled.get()) {
					return;
				}
				if (error != null) {
					sink.error((error instanceof CompletionException && error.getCause() != null) ? error.getCause()
							: error);
				}
				else {
					sink.success(response);
				}
			});
		}).map((response) -> answer(format, response.statusCode(), response.headers().map(), response.body()));
	}

	/**
	 * The answer's text; for an error status, a {@link ProviderAnswerException} carrying
	 * the answer, which the engine classifies as a call's; for a 2xx that is no
	 * well-formed answer, a {@link CanaryFailure} saying what was wrong with it.
	 * @param headers the answer's headers (a rate limit's wait hint)
	 * @param body the body, or {@code null} when longer than {@link #MAX_ANSWER_BYTES}
	 */
	static String answer(ChatFormat format, int status, Map<String, List<String>> headers, byte @Nullable [] body) {
		if (status < 200 || status > 299) {
			throw new ProviderAnswerException(ProviderResponse.of(status, headers, body));
		}
		if (body == null) {
			throw new CanaryFailure("answer longer than " + MAX_ANSWER_BYTES + " bytes");
		}
		String text = new String(body, StandardCharsets.UTF_8);
		if (text.isBlank()) {
			throw new CanaryFailure("HTTP " + status + " with an empty body, not a well-formed " + format.vendor());
		}
		Object tree = StrictJson.read(text);
		if (tree == null) {
			throw new CanaryFailure("HTTP " + status + " with a malformed body, not a well-formed " + format.vendor());
		}
		String answer = format.text(tree);
		if (answer == null) {
			throw new CanaryFailure("HTTP " + status + " without answer text, not a well-formed " + format.vendor());
		}
		return answer;
	}

	private static HttpResponse.BodySubscriber<byte @Nullable []> bounded(HttpResponse.ResponseInfo info) {
		return new BoundedBody(MAX_ANSWER_BYTES);
	}

	/** Collects a body up to a limit; past it, stops reading and yields {@code null}. */
	private static final class BoundedBody implements HttpResponse.BodySubscriber<byte @Nullable []> {

		private final CompletableFuture<byte @Nullable []> body = new CompletableFuture<>();

		private final ByteArrayOutputStream out = new ByteArrayOutputStream();

		private final int limit;

		private Flow.@Nullable Subscription subscription;

		BoundedBody(int limit) {
			this.limit = limit;
		}

		@Override
		public CompletionStage<byte @Nullable []> getBody() {
			return this.body;
		}

		@Override
		public void onSubscribe(Flow.Subscription subscription) {
			this.subscription = subscription;
			subscription.request(Long.MAX_VALUE);
		}

		@Override
		public void onNext(List<ByteBuffer> items) {
			if (this.body.isDone()) {
				return;
			}
			for (ByteBuffer item : items) {
				if (this.out.size() + item.remaining() > this.limit) {
					this.body.complete(null);
					if (this.subscription != null) {
						this.subscription.cancel();
					}
					return;
				}
				byte[] bytes = new byte[item.remaining()];
				item.get(bytes);
				this.out.writeBytes(bytes);
			}
		}

		@Override
		public void onError(Throwable error) {
			this.body.completeExceptionally(error);
		}

		@Override
		public void onComplete() {
			this.body.complete(this.out.toByteArray());
		}

	}

}
