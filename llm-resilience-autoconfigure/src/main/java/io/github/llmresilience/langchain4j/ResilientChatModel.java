package io.github.llmresilience.langchain4j;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.ChatRequestOptions;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import io.github.llmresilience.execute.Attempt;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.execute.TargetCall;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * A LangChain4j {@link ChatModel} that serves every call through a chain: each attempt
 * goes to the LangChain4j chat model of the target the chain picked, with the same gate,
 * account, breaker, classification, retries and failover as any other call. The request's
 * parameters are carried over (each target lays them over its own defaults); a target's
 * configured {@code model} replaces the request's model name. What the chain's models
 * throw is classified from its status and body ({@code LangChain4jErrorExtractor}).
 */
public final class ResilientChatModel implements ChatModel {

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
	 * Serves the request through the chain. Each attempt runs the target's blocking call
	 * on a worker thread, so that a hung attempt is left at its timeout whatever its HTTP
	 * client does; the worker is then interrupted (LangChain4j's JDK client stops on it)
	 * and what it throws afterwards is dropped.
	 * @throws io.github.llmresilience.execute.LlmUnavailableException when no target
	 * could serve
	 * @throws io.github.llmresilience.execute.LlmRejectedException when a provider
	 * rejected the request itself
	 */
	@Override
	public ChatResponse chat(ChatRequest request) {
		return serve(request, null);
	}

	@Override
	public ChatResponse chat(ChatRequest request, ChatRequestOptions options) {
		return serve(request, options);
	}

	@Override
	public ChatResponse doChat(ChatRequest request) {
		return serve(request, null);
	}

	private ChatResponse serve(ChatRequest request, @Nullable ChatRequestOptions options) {
		Objects.requireNonNull(request, "request");
		TargetCall<ChatResponse> call = (attempt) -> {
			AtomicBoolean abandoned = new AtomicBoolean();
			return Mono.fromCallable(() -> {
				ChatModel model = model(attempt);
				ChatRequest forTarget = TargetRequests.forTarget(request, attempt);
				try {
					return TargetRequests.reported(attempt,
							(options != null) ? model.chat(forTarget, options) : model.chat(forTarget));
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
		ChatResponse response = this.resilience.execute(this.chain, call).block();
		return Objects.requireNonNull(response, "ChatModel returned no response");
	}

	private ChatModel model(Attempt attempt) {
		ChatModel model = this.models.get(attempt.target().name());
		if (model == null) {
			throw new IllegalStateException(
					"Target " + attempt.target().name() + " of chain " + this.chain + " has no LangChain4j chat model");
		}
		return model;
	}

	@Override
	public String toString() {
		return "ResilientChatModel[chain=" + this.chain + ", targets=" + this.models.keySet() + "]";
	}

}
