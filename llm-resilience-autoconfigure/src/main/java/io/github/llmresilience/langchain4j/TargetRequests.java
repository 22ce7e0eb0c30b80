package io.github.llmresilience.langchain4j;

import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.TokenUsage;
import io.github.llmresilience.execute.Attempt;
import io.github.llmresilience.usage.Usage;
import org.jspecify.annotations.Nullable;

/**
 * What both failover models do to a request and an answer on their way through an
 * attempt: the target's model over the request's, the answer's tokens to the engine.
 */
final class TargetRequests {

	/** A target's model when none is configured (see {@code Target}). */
	private static final String UNSET_MODEL = "default";

	private TargetRequests() {
	}

	/**
	 * The request for the attempt's target: its parameters as they are (the target model
	 * lays them over its own defaults), the target's model over the request's when the
	 * target names one.
	 */
	static ChatRequest forTarget(ChatRequest request, Attempt attempt) {
		String model = attempt.target().model();
		if (UNSET_MODEL.equals(model)) {
			return request;
		}
		ChatRequestParameters named = ChatRequestParameters.builder().modelName(model).build();
		@Nullable ChatRequestParameters parameters = request.parameters();
		return request.toBuilder().parameters((parameters != null) ? parameters.overrideWith(named) : named).build();
	}

	/**
	 * Hand the answer's token usage to the engine (spend, token quotas): LangChain4j
	 * reads it from every vendor's answer.
	 */
	static @Nullable ChatResponse reported(Attempt attempt, @Nullable ChatResponse response) {
		if (response != null) {
			@Nullable TokenUsage usage = response.tokenUsage();
			if (usage != null) {
				long input = tokens(usage.inputTokenCount());
				long output = tokens(usage.outputTokenCount());
				if (input > 0 || output > 0) {
					attempt.usage(new Usage(input, output));
				}
			}
		}
		return response;
	}

	private static long tokens(@Nullable Integer count) {
		return (count != null && count > 0) ? count : 0;
	}

}
