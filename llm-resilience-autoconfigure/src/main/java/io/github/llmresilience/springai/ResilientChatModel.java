package io.github.llmresilience.springai;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.llmresilience.execute.Attempt;
import io.github.llmresilience.execute.CallOptions;
import io.github.llmresilience.execute.LlmFallback;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.execute.StreamingTargetCall;
import io.github.llmresilience.execute.TargetCall;
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
 *
 * <p>
 * With a fallback ({@code llm.resilience.fallbacks.<chain>}, an
 * {@code LlmFallback<ChatResponse>} bean), a call no target can serve is answered by it
 * instead of failing with {@code LlmUnavailableException} (a stream: before its first
 * response); the degraded response says so in its metadata: {@value #DEGRADED} is
 * {@code true}, {@value #SERVED_BY} is {@value LlmFallback#SERVED_BY} and
 * {@value #RETRY_AFTER} the earliest moment a target may serve again.
 */
public final class ResilientChatModel implements ChatModel {

	/** A target's model when none is configured (see {@code Target}). */
	private static final String UNSET_MODEL = "default";

	/** Metadata key of a degraded response: {@code true}. */
	public static final String DEGRADED = "llm-resilience.degraded";

	/** Metadata key of a degraded response: {@value LlmFallback#SERVED_BY}. */
	public static final String SERVED_BY = "llm-resilience.served-by";

	/**
	 * Metadata key of a degraded response: the {@link java.time.Instant} a target may
	 * serve again.
	 */
	public static final String RETRY_AFTER = "llm-resilience.retry-after";

	private final LlmResilience resilience;

	private final String chain;

	private final Map<String, ChatModel> models;

	private final Scheduler blocking;

	private final @Nullable LlmFallback<ChatResponse> fallback;

	/**
	 * @param resilience the executor
	 * @param chain the chain that serves this model's calls
	 * @param models the chat model of each of the chain's targets, by target name
	 */
	public ResilientChatModel(LlmResilience resilience, String chain, Map<String, ChatModel> models) {
		this(resilience, chain, models, null);
	}

	/**
	 * @param resilience the executor
	 * @param chain the chain that serves this model's calls
	 * @param models the chat model of each of the chain's targets, by target name
	 * @param fallback what answers when no target can serve, or {@code null} to fail with
	 * {@code LlmUnavailableException}
	 */
	public ResilientChatModel(LlmResilience resilience, String chain, Map<String, ChatModel> models,
			@Nullable LlmFallback<ChatResponse> fallback) {
		this(resilience, chain, models, fallback, Schedulers.boundedElastic());
	}

	ResilientChatModel(LlmResilience resilience, String chain, Map<String, ChatModel> models,
			@Nullable LlmFallback<ChatResponse> fallback, Scheduler blocking) {
		this.resilience = Objects.requireNonNull(resilience, "resilience");
		this.chain = Objects.requireNonNull(chain, "chain");
		this.models = Map.copyOf(models);
		this.fallback = (fallback != null) ? degraded(fallback) : null;
		this.blocking = blocking;
	}

	/** The fallback's response, marked degraded in its metadata. */
	private static LlmFallback<ChatResponse> degraded(LlmFallback<ChatResponse> fallback) {
		return (degradation) -> {
			ChatResponse response = fallback.answer(degradation);
			if (response == null) {
				return null;
			}
			return ChatResponse.builder()
				.from(response)
				.metadata(DEGRADED, true)
				.metadata(SERVED_BY, LlmFallback.SERVED_BY)
				.metadata(RETRY_AFTER, degradation.retryAfter())
				.build();
		};
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
		TargetCall<ChatResponse> call = (attempt) -> {
			AtomicBoolean abandoned = new AtomicBoolean();
			return Mono.fromCallable(() -> {
				ChatModel model = model(attempt);
				try {
					// In the attempt's trace: Spring AI's own observation of the request
					// is the attempt's child.
					return reported(attempt, attempt.inScope(() -> model.call(forTarget(prompt, attempt, model))));
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
		};
		LlmFallback<ChatResponse> fallback = this.fallback;
		ChatResponse response = ((fallback != null)
				? this.resilience.execute(this.chain, CallOptions.NONE, call, fallback)
				: this.resilience.execute(this.chain, call))
			.block();
		return Objects.requireNonNull(response, "ChatModel returned no response");
	}

	@Override
	public Flux<ChatResponse> stream(Prompt prompt) {
		Objects.requireNonNull(prompt, "prompt");
		StreamingTargetCall<ChatResponse> call = (attempt) -> Flux.defer(() -> {
			ChatModel model = model(attempt);
			return model.stream(forTarget(prompt, attempt, model)).doOnNext((chunk) -> reported(attempt, chunk));
		});
		LlmFallback<ChatResponse> fallback = this.fallback;
		return (fallback != null) ? this.resilience.stream(this.chain, CallOptions.NONE, call, fallback)
				: this.resilience.stream(this.chain, call);
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
