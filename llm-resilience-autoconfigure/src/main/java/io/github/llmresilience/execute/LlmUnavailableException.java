package io.github.llmresilience.execute;

import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

/**
 * No target of the chain could serve the call. Carries every step, whether every target
 * was only rate limited, and the earliest moment a target may serve again: a web layer
 * answers 503 (429 when all were throttled) with a truthful {@code Retry-After}; a job
 * worker requeues the job until {@link #retryAfter()} without spending one of its
 * attempts.
 */
public class LlmUnavailableException extends RuntimeException {

	private final String chain;

	private final transient List<ChainStep> steps;

	private final boolean allThrottled;

	private final Instant retryAfter;

	private final @Nullable String reason;

	private transient volatile @Nullable String message;

	public LlmUnavailableException(String chain, List<ChainStep> steps, boolean allThrottled, Instant retryAfter,
			@Nullable String reason, @Nullable Throwable cause) {
		// The message is built when first asked for: failing fast is the breaker's whole
		// point, and most callers read retryAfter(), not the text.
		super(null, cause, true, false);
		this.chain = chain;
		this.steps = List.copyOf(steps);
		this.allThrottled = allThrottled;
		this.retryAfter = retryAfter;
		this.reason = reason;
	}

	@Override
	public String getMessage() {
		String text = this.message;
		if (text == null) {
			text = message(this.chain, this.steps, this.retryAfter, this.reason);
			this.message = text;
		}
		return text;
	}

	public String chain() {
		return this.chain;
	}

	/** Every attempt and skip, in order. */
	public List<ChainStep> steps() {
		return this.steps;
	}

	/** Whether every target was only rate limited (a 429 is then the honest answer). */
	public boolean allThrottled() {
		return this.allThrottled;
	}

	/** The earliest moment a target of the chain may serve again. */
	public Instant retryAfter() {
		return this.retryAfter;
	}

	private static String message(String chain, List<ChainStep> steps, Instant retryAfter, @Nullable String reason) {
		return "No target of chain '" + chain + "' could serve the call" + ((reason != null) ? " (" + reason + ")" : "")
				+ ": " + steps.stream().map(ChainStep::toString).collect(Collectors.joining("; ")) + "; retry after "
				+ retryAfter;
	}

}
