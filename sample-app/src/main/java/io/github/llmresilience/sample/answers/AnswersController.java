package io.github.llmresilience.sample.answers;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.ProviderClassifiers;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.execute.ErrorExtractors;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.target.Target;
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

	private final ErrorExtractors extractors;

	private final ProviderClassifiers classifiers;

	AnswersController(Answers answers, LlmResilience resilience, ApiErrors errors, ErrorExtractors extractors,
			ProviderClassifiers classifiers) {
		this.answers = answers;
		this.resilience = resilience;
		this.errors = errors;
		this.extractors = extractors;
		this.classifiers = classifiers;
	}

	@PostMapping
	Mono<Answer> answer(@RequestBody Question question) {
		return this.answers.answer(question.text());
	}

	/**
	 * Events: {@code token} ({@code {"text"}}) for each piece of the answer, then
	 * {@code done} ({@code {"servedBy"}}), or {@code error} ({@code {"error": {"code",
	 * "message"}}}) when the stream fails. A 503 with {@code Retry-After} when no target of
	 * the chain is usable.
	 */
	@GetMapping("/stream")
	ResponseEntity<?> stream(@RequestParam String question) {
		String text = new Question(question).text();
		String chain = this.answers.chain();
		Optional<Target> usable = this.answers.firstUsableTarget(chain);
		if (usable.isEmpty()) {
			return this.errors.unavailable(this.resilience.availableAt(chain), false);
		}
		Target target = usable.get();
		AtomicInteger tokens = new AtomicInteger();
		Flux<ServerSentEvent<Object>> events = this.answers.stream(target, text)
			.doOnNext((token) -> tokens.incrementAndGet())
			.map((token) -> ServerSentEvent.<Object>builder(new Token(token)).event("token").build())
			.concatWith(Mono.fromSupplier(() -> ServerSentEvent.<Object>builder(new Done(target.name()))
				.event("done")
				.build()))
			.onErrorResume((error) -> Mono.just(ServerSentEvent.<Object>builder(failure(target, error, tokens.get()))
				.event("error")
				.build()));
		return ResponseEntity.ok().contentType(MediaType.TEXT_EVENT_STREAM).body(events);
	}

	/** What the client is told when a stream fails, classified as the library would. */
	private ApiError failure(Target target, Throwable error, int tokens) {
		if (tokens > 0) {
			return ApiError.of("stream_interrupted", "The answer from " + target.name() + " stopped after " + tokens
					+ " tokens; ask again.");
		}
		ProviderResponse response = this.extractors.extract(error);
		Outcome outcome = (response != null) ? this.classifiers.forVendor(target.provider()).classify(response).outcome()
				: Outcome.AVAILABILITY;
		return switch (outcome) {
			case CONTENT_FILTER -> ApiError.of("content_filtered", "The AI provider declined to answer this question.");
			case REQUEST -> ApiError.of("invalid_request", "The AI provider rejected the request.");
			default -> ApiError.of("ai_unavailable", target.name() + " could not answer (" + outcome + ").");
		};
	}

	/** @param text a piece of the answer */
	record Token(String text) {

	}

	/** @param servedBy the target that streamed the answer */
	record Done(String servedBy) {

	}

}
