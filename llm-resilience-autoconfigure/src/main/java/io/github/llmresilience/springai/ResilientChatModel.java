package io.github.llmresilience.springai;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.llmresilience.execute.Attempt;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.usage.Usage;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;

/**
 * A Spring AI {@link ChatModel} that serves every call through a chain: each attempt goes
 * to the chat model of the target the chain picked, with the same gate, account, breaker,
 * classification, retries and failover as any other call. The request's options are
 * carried over; a target's configured {@code model} replaces the request's model.
 * Streaming fails over only before the first response; after it, a failure ends the Flux
 * with {@code LlmStreamInterruptedException}.
 */
public final class ResilientChatModel implements ChatModel {

	/** A target's model when none is configured (see {@code Target}). */
	private static final String UNSET_MODEL = "default";

	private final LlmResilience resilience;

	private final String chain;

	private final Map<String, ChatModel> models;

	private final Scheduler blocking;

	/**
	 * @param resilience the executor
	 * @param chain the chain that serves this model's calls
	 * @param models the chat model of each of the chain's targets, by target name
	 */
	public ResilientChatModel(LlmResilience resilience, String chain, Map<String, ChatModel> models) {
		this(resilience, chain, models, Schedulers.boundedElastic());
	}

	ResilientChatModel(LlmResilience resilience, String chain, Map<String, ChatModel> models, Scheduler blocking) {
		this.resilience = Objects.requireNonNull(resilience, "resilience");
		this.chain = Objects.requireNonNull(chain, "chain");
		this.models = Map.copyOf(models);
		this.blocking = blocking;
	}

	/** The chain that serves this model's calls. */
	public String chain() {
		return this.chain;
	}

	/**
	 * Serves the prompt through the chain. Each attempt runs the target's blocking call
	 * on a worker thread, so that a hung attempt is left at its timeout whatever its
	 * client does; the worker is then interrupted (OkHttp, under the vendor SDKs, stops
	 * on it) and what it throws afterwards is dropped.
	 * @throws io.github.llmresilience.execute.LlmUnavailableException when no target
	 * could serve
	 * @throws io.github.llmresilience.execute.LlmRejectedException when a provider
	 * rejected the request itself
	 */
	@Override
	public ChatResponse call(Prompt prompt) {
		Objects.requireNonNull(prompt, "prompt");
		ChatResponse response = this.resilience.execute(this.chain, (attempt) -> {
			AtomicBoolean abandoned = new AtomicBoolean();
			return Mono.fromCallable(() -> {
				ChatModel model = model(attempt);
				try {
					return reported(attempt, model.call(forTarget(prompt, attempt, model)));
				}
				catch (RuntimeException ex) {
					// An attempt left at its timeout is interrupted; what its client then
					// throws has no one to go to.
					if (abandoned.get()) {
						return null;
					}
					throw ex;
				}
			}).subscribeOn(this.blocking).doOnCancel(() -> abandoned.set(true));
		}).block();
		return Objects.requireNonNull(response, "ChatModel returned no response");
	}

	@Override
	public Flux<ChatResponse> stream(Prompt prompt) {
		Objects.requireNonNull(prompt, "prompt");
		return this.resilience.stream(this.chain, (attempt) -> Flux.defer(() -> {
			ChatModel model = model(attempt);
			return model.stream(forTarget(prompt, attempt, model)).doOnNext((chunk) -> reported(attempt, chunk));
		}));
	}

	/**
	 * Hand the answer's token usage to the engine (spend, token quotas): Spring AI reads
	 * it from every vendor's answer; a stream's chunks carry running totals.
	 */
	private static @Nullable ChatResponse reported(Attempt attempt, @Nullable ChatResponse response) {
		if (response != null) {
			org.springframework.ai.chat.metadata.Usage usage = response.getMetadata().getUsage();
			if (usage != null) {
				long input = tokens(usage.getPromptTokens());
				long output = tokens(usage.getCompletionTokens());
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

	private ChatModel model(Attempt attempt) {
		ChatModel model = this.models.get(attempt.target().name());
		if (model == null) {
			throw new IllegalStateException(
					"Target " + attempt.target().name() + " of chain " + this.chain + " has no chat model");
		}
		return model;
	}

	/**
	 * The prompt in the target chat model's own options type (Spring AI's chat models
	 * cast to it): the model's defaults, the request's options over them, and the
	 * target's model over both when the target names one.
	 */
	static Prompt forTarget(Prompt prompt, Attempt attempt, ChatModel target) {
		ChatOptions.Builder<?> builder = target.getDefaultOptions().mutate();
		@Nullable ChatOptions request = prompt.getOptions();
		if (request != null) {
			builder = builder.combineWith(request.mutate());
		}
		String model = attempt.target().model();
		if (!UNSET_MODEL.equals(model)) {
			builder = builder.model(model);
		}
		return prompt.mutate().chatOptions(builder.build()).build();
	}

	@Override
	public String toString() {
		return "ResilientChatModel[chain=" + this.chain + ", targets=" + this.models.keySet() + "]";
	}

}
