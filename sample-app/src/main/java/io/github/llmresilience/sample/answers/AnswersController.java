package io.github.llmresilience.sample.answers;

import java.util.concurrent.atomic.AtomicReference;

import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.execute.LlmRejectedException;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.execute.LlmStreamInterruptedException;
import io.github.llmresilience.execute.LlmUnavailableException;
import io.github.llmresilience.sample.answers.Answers.Token;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The answers API: one answer, or one answer streamed as server-sent events.
 */
@RestController
@RequestMapping("/v1/answers")
class AnswersController {

	private final Answers answers;

	private final LlmResilience resilience;

	private final ApiErrors errors;

	private final RecentAnswers recent;

	AnswersController(Answers answers, LlmResilience resilience, ApiErrors errors, RecentAnswers recent) {
		this.answers = answers;
		this.resilience = resilience;
		this.errors = errors;
		this.recent = recent;
	}

	/**
	 * The answer and who served it; in degraded mode ({@code sample.answers.degraded}),
	 * when no target can serve, a recent answer or an honest message served by
	 * {@code degraded}.
	 */
	@PostMapping
	Mono<Answer> answer(@RequestBody Question question) {
		String text = question.text();
		return this.answers.degraded() ? this.answers.answer(text, this.recent.fallback(text))
				: this.answers.answer(text);
	}

	/**
	 * Events: {@code token} ({@code {"text"}}) for each piece of the answer, then
	 * {@code done} ({@code {"servedBy"}}), or {@code error} ({@code {"error": {"code",
	 * "message"}}}) when the stream fails. A 503 with {@code Retry-After} when no target
	 * of the chain is usable, or, in degraded mode, the degraded answer as one token and
	 * {@code done} with {@code servedBy} {@code degraded}.
	 */
	@GetMapping("/stream")
	ResponseEntity<?> stream(@RequestParam String question) {
		String text = new Question(question).text();
		String chain = this.answers.chain();
		boolean degraded = this.answers.degraded();
		// Known before the first byte: answer with a status and Retry-After, not an
		// event (in degraded mode, the fallback answers instead).
		if (!degraded && this.answers.firstUsableTarget(chain).isEmpty()) {
			return this.errors.unavailable(this.resilience.availableAt(chain), false);
		}
		AtomicReference<@Nullable String> servedBy = new AtomicReference<>();
		Flux<Token> tokens = degraded ? this.answers.stream(text, this.recent.streamFallback(text))
				: this.answers.stream(text);
		Flux<ServerSentEvent<Object>> events = tokens.doOnNext((token) -> servedBy.set(token.servedBy()))
			.map((token) -> ServerSentEvent.<Object>builder(new TokenEvent(token.text())).event("token").build())
			.concatWith(Mono
				.fromSupplier(() -> ServerSentEvent.<Object>builder(new Done(servedBy.get())).event("done").build()))
			.onErrorResume(
					(error) -> Mono.just(ServerSentEvent.<Object>builder(failure(error)).event("error").build()));
		return ResponseEntity.ok().contentType(MediaType.TEXT_EVENT_STREAM).body(events);
	}

	/** What the client is told when a stream fails, from the library's verdict. */
	private static ApiError failure(Throwable error) {
		if (error instanceof LlmStreamInterruptedException interrupted) {
			return ApiError.of("stream_interrupted", "The answer from " + interrupted.target() + " stopped after "
					+ interrupted.elementsReceived() + " tokens; ask again.");
		}
		if (error instanceof LlmRejectedException rejected) {
			return (rejected.verdict().outcome() == Outcome.CONTENT_FILTER)
					? ApiError.of("content_filtered", "The AI provider declined to answer this question.")
					: ApiError.of("invalid_request", "The AI provider rejected the request.");
		}
		if (error instanceof LlmUnavailableException unavailable) {
			return ApiError.of(unavailable.allThrottled() ? "provider_rate_limited" : "ai_unavailable",
					"No AI provider could answer; retry after " + unavailable.retryAfter() + ".");
		}
		return ApiError.of("ai_unavailable", "The answer could not be streamed.");
	}

	/**
	 * @param text a piece of the answer
	 */
	record TokenEvent(String text) {

	}

	/**
	 * @param servedBy the target that streamed the answer
	 */
	record Done(@Nullable String servedBy) {

	}

}
