package io.github.llmresilience.classify.vendor.openai;

import java.util.Map;

import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.vendor.CanaryFormat;
import org.jspecify.annotations.Nullable;

/**
 * One provider id served by the OpenAI-shaped classifier: its own error codes and what
 * its statuses mean, beside the codes every OpenAI-shaped server shares. Data, not a
 * class each: {@code provider: groq} selects Groq's profile, an unknown OpenAI-shaped
 * server keeps {@code openai-compatible}.
 *
 * @param id the provider id
 * @param codes the provider's own {@code error.code}, {@code error.type} or
 * {@code error_type} values, read before the shared table
 * @param statuses what a status means at this provider when nothing else in the answer
 * says
 * @param canary how the canary asks it a question, or {@code null}
 * @param docs where its errors are documented (for the README and the docs)
 */
record OpenAiProfile(String id, Map<String, Outcome> codes, Map<Integer, Outcome> statuses,
		@Nullable CanaryFormat canary, String docs) {

	static OpenAiProfile of(String id, CanaryFormat canary, String docs) {
		return new OpenAiProfile(id, Map.of(), Map.of(), canary, docs);
	}

	OpenAiProfile codes(Map<String, Outcome> codes) {
		return new OpenAiProfile(this.id, codes, this.statuses, this.canary, this.docs);
	}

	OpenAiProfile statuses(Map<Integer, Outcome> statuses) {
		return new OpenAiProfile(this.id, this.codes, statuses, this.canary, this.docs);
	}

}
