package io.github.llmresilience.sample.answers;

import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import io.github.llmresilience.execute.Degradation;
import io.github.llmresilience.execute.LlmFallback;
import io.github.llmresilience.sample.answers.Answers.Token;
import org.jspecify.annotations.Nullable;

import org.springframework.stereotype.Component;

/**
 * The sample's degraded mode: the last answers served, by question, and the fallbacks
 * that answer from them when no target can serve. A question asked before gets its last
 * answer again; any other gets an honest message saying when to ask again. Either way
 * {@code servedBy} is {@value LlmFallback#SERVED_BY}, so a client can show that the
 * answer is not fresh.
 */
@Component
public class RecentAnswers {

	/** How many questions are remembered; the oldest asked is forgotten first. */
	static final int CAPACITY = 100;

	private final Clock clock;

	private final Map<String, String> answers = new LinkedHashMap<>(16, 0.75f, true) {

		@Override
		protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
			return size() > CAPACITY;
		}

	};

	public RecentAnswers(Clock clock) {
		this.clock = clock;
	}

	/** Remember an answer a target served. */
	void remember(String question, Answer answer) {
		synchronized (this.answers) {
			this.answers.put(key(question), answer.answer());
		}
	}

	/** What answers this question when no target can. */
	public LlmFallback<Answer> fallback(String question) {
		return (degradation) -> new Answer(text(question, degradation), LlmFallback.SERVED_BY);
	}

	/** What streams the answer to this question, as one token, when no target can. */
	public LlmFallback<Token> streamFallback(String question) {
		return (degradation) -> new Token(text(question, degradation), LlmFallback.SERVED_BY);
	}

	private String text(String question, Degradation degradation) {
		@Nullable String recent;
		synchronized (this.answers) {
			recent = this.answers.get(key(question));
		}
		if (recent != null) {
			return recent;
		}
		long seconds = Math.max(1, Duration.between(this.clock.instant(), degradation.retryAfter()).toSeconds());
		return "No AI provider can answer right now, and this question has no recent answer. Please ask again in "
				+ seconds + " s.";
	}

	private static String key(String question) {
		return question.strip().toLowerCase(Locale.ROOT);
	}

}
