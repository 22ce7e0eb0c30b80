package io.github.llmresilience.canary;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import io.github.llmresilience.settings.InvalidSettingException;
import io.github.llmresilience.timeout.TimeLimits;
import org.jspecify.annotations.Nullable;

/**
 * A failure domain's canary: a request of the library's own, sent when the breaker's open
 * time ends, whose judged answer is the half-open trial instead of a user's request. A
 * component out of its range fails construction, naming it.
 *
 * @param prompt the prompt the built-in sender sends in the target's vendor format (not
 * blank); {@code null} when a {@link CanaryProbe} sends the canary
 * @param timeout the time the answer has (positive, at most {@link #MAX_TIMEOUT}); a
 * later answer is a failed trial
 * @param judge what the answer's text must be to pass
 * @param pattern the regular expression the answer must contain a match of, for
 * {@link Judge#REGEX} (required there, ignored elsewhere)
 * @param maxTokens the longest answer to ask for (1 to 4,096)
 */
public record CanarySettings(@Nullable String prompt, Duration timeout, Judge judge, @Nullable String pattern,
		int maxTokens) {

	/** The default time a canary's answer has. */
	public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

	/** The longest time a canary's answer may be given: a canary is a short request. */
	public static final Duration MAX_TIMEOUT = Duration.ofMinutes(5);

	/** The default longest answer to ask for. */
	public static final int DEFAULT_MAX_TOKENS = 64;

	/** What a canary's answer must be to pass. */
	public enum Judge {

		/** Any answer with text: a success status, a well-formed body, text not blank. */
		ANSWER,

		/** The answer's text parses as one JSON value. */
		JSON,

		/** The answer's text contains a match of {@code pattern}. */
		REGEX,

		/** The application's {@link CanaryJudge} accepts the answer's text. */
		PREDICATE

	}

	/**
	 * @throws IllegalArgumentException naming the first component out of its range, the
	 * range and the value
	 */
	public CanarySettings {
		if (prompt != null && prompt.isBlank()) {
			throw new InvalidSettingException("prompt", "must not be blank", "'" + prompt + "'");
		}
		TimeLimits.requirePositive("timeout", timeout);
		if (timeout.compareTo(MAX_TIMEOUT) > 0) {
			throw new InvalidSettingException("timeout", "must be a positive duration of at most " + MAX_TIMEOUT,
					timeout);
		}
		Objects.requireNonNull(judge, "judge");
		if (judge == Judge.REGEX) {
			if (pattern == null || pattern.isEmpty()) {
				throw new InvalidSettingException("pattern", "must be set when the judge is regex", pattern);
			}
			try {
				Pattern.compile(pattern);
			}
			catch (PatternSyntaxException ex) {
				throw new InvalidSettingException("pattern",
						"must be a regular expression (" + ex.getDescription() + " near index " + ex.getIndex() + ")",
						"'" + pattern + "'");
			}
		}
		if (maxTokens < 1 || maxTokens > 4096) {
			throw new InvalidSettingException("maxTokens", "must be between 1 and 4096", maxTokens);
		}
	}

	/** A canary sending this prompt, with the default timeout, judgement and length. */
	public static CanarySettings of(String prompt) {
		return new CanarySettings(prompt, DEFAULT_TIMEOUT, Judge.ANSWER, null, DEFAULT_MAX_TOKENS);
	}

	/** A canary whose {@link CanaryProbe} brings its own request. */
	public static CanarySettings probed() {
		return new CanarySettings(null, DEFAULT_TIMEOUT, Judge.ANSWER, null, DEFAULT_MAX_TOKENS);
	}

	public CanarySettings withTimeout(Duration timeout) {
		return new CanarySettings(this.prompt, timeout, this.judge, this.pattern, this.maxTokens);
	}

	/** Judge the answer as JSON, by a predicate, or as any text. */
	public CanarySettings withJudge(Judge judge) {
		return new CanarySettings(this.prompt, this.timeout, judge, this.pattern, this.maxTokens);
	}

	/** Judge the answer by a regular expression it must contain a match of. */
	public CanarySettings withPattern(String pattern) {
		return new CanarySettings(this.prompt, this.timeout, Judge.REGEX, pattern, this.maxTokens);
	}

}
