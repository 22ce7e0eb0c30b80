package io.github.llmresilience.sample.answers;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;

import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.execute.LlmRejectedException;
import io.github.llmresilience.execute.LlmUnavailableException;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.server.ServerWebInputException;

/**
 * Turns llm-resilience's two exceptions into honest HTTP answers: a provider outage is
 * the service's 503 with a {@code Retry-After} the client can trust, a rate limit on
 * every target a 429, and a request the provider rejected the caller's 422 or 400.
 */
@RestControllerAdvice
public class ApiErrors {

	/** The longest {@code Retry-After} of a 429: a rate limit clears within minutes. */
	static final long MAX_THROTTLED_RETRY_AFTER = 300;

	/**
	 * The longest {@code Retry-After} of a 503: a breaker an operator forced open has no
	 * end, and a client should still look again some day.
	 */
	static final long MAX_UNAVAILABLE_RETRY_AFTER = Duration.ofDays(1).toSeconds();

	private final Clock clock;

	public ApiErrors(Clock clock) {
		this.clock = clock;
	}

	@ExceptionHandler
	ResponseEntity<ApiError> unavailable(LlmUnavailableException ex) {
		return unavailable(ex.retryAfter(), ex.allThrottled());
	}

	/**
	 * 429 {@code provider_rate_limited} when every target was only rate limited, else 503
	 * {@code ai_unavailable}; {@code Retry-After} in whole seconds, rounded up.
	 */
	public ResponseEntity<ApiError> unavailable(Instant retryAfter, boolean allThrottled) {
		long seconds = secondsUntil(retryAfter);
		if (allThrottled) {
			seconds = Math.min(seconds, MAX_THROTTLED_RETRY_AFTER);
			return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS)
				.header(HttpHeaders.RETRY_AFTER, Long.toString(seconds))
				.contentType(MediaType.APPLICATION_JSON)
				.body(ApiError.of("provider_rate_limited",
						"Every AI provider is rate limiting this service; retry after " + seconds + " s."));
		}
		seconds = Math.min(seconds, MAX_UNAVAILABLE_RETRY_AFTER);
		// JSON even for a stream request, whose Accept names only text/event-stream.
		return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
			.header(HttpHeaders.RETRY_AFTER, Long.toString(seconds))
			.contentType(MediaType.APPLICATION_JSON)
			.body(ApiError.of("ai_unavailable", "No AI provider can answer right now; retry after " + seconds + " s."));
	}

	@ExceptionHandler
	ResponseEntity<ApiError> rejected(LlmRejectedException ex) {
		Outcome outcome = ex.verdict().outcome();
		String type = ex.verdict().errorType().orElse(outcome.name().toLowerCase(Locale.ROOT));
		return switch (outcome) {
			case CONTENT_FILTER -> ResponseEntity.unprocessableContent()
				.body(ApiError.of("content_filtered", "The AI provider declined to answer this question (" + type
						+ "); asking again or elsewhere would get the same."));
			case REQUEST -> ResponseEntity.badRequest()
				.body(ApiError.of("invalid_request", "The AI provider rejected the request (" + type + ")."));
			default -> ResponseEntity.status(HttpStatus.BAD_GATEWAY)
				.body(ApiError.of("provider_error", "The AI provider failed the request (" + type + ")."));
		};
	}

	@ExceptionHandler
	ResponseEntity<ApiError> invalidQuestion(Question.InvalidQuestion ex) {
		return ResponseEntity.badRequest().body(ApiError.of("invalid_request", ex.getMessage()));
	}

	@ExceptionHandler
	ResponseEntity<ApiError> unreadable(ServerWebInputException ex) {
		return ResponseEntity.badRequest()
			.body(ApiError.of("invalid_request", (ex.getReason() != null) ? ex.getReason() : ex.getMessage()));
	}

	/** Whole seconds from now until the instant, rounded up, at least 1. */
	long secondsUntil(Instant instant) {
		Duration wait = Duration.between(this.clock.instant(), instant);
		long seconds = wait.getSeconds() + ((wait.getNano() > 0) ? 1 : 0);
		return Math.max(1, seconds);
	}

}
