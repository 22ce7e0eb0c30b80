package io.github.llmresilience.langchain4j;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

import dev.langchain4j.model.chat.ChatRequestOptions;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.CompleteToolCall;
import dev.langchain4j.model.chat.response.PartialResponse;
import dev.langchain4j.model.chat.response.PartialResponseContext;
import dev.langchain4j.model.chat.response.PartialThinking;
import dev.langchain4j.model.chat.response.PartialThinkingContext;
import dev.langchain4j.model.chat.response.PartialToolCall;
import dev.langchain4j.model.chat.response.PartialToolCallContext;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.chat.response.StreamingHandle;
import io.github.llmresilience.execute.Attempt;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.execute.StreamingTargetCall;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;

/**
 * A LangChain4j {@link StreamingChatModel} that serves every call through a chain: each
 * attempt streams from the LangChain4j streaming model of the target the chain picked. It
 * fails over only until the first event (a partial response, thinking or tool call, or
 * the complete response) reaches the handler, within {@code timeouts.first-token}; after
 * it, a failure reaches {@code onError} as {@code LlmStreamInterruptedException}, as for
 * every stream. The request's parameters are carried over; a target's configured
 * {@code model} replaces the request's model name.
 */
public final class ResilientStreamingChatModel implements StreamingChatModel {

	private final LlmResilience resilience;

	private final String chain;

	private final Map<String, StreamingChatModel> models;

	/**
	 * @param resilience the executor
	 * @param chain the chain that serves this model's calls
	 * @param models the streaming chat model of each of the chain's targets, by target
	 * name
	 */
	public ResilientStreamingChatModel(LlmResilience resilience, String chain, Map<String, StreamingChatModel> models) {
		this.resilience = Objects.requireNonNull(resilience, "resilience");
		this.chain = Objects.requireNonNull(chain, "chain");
		this.models = Map.copyOf(models);
	}

	/** The chain that serves this model's calls. */
	public String chain() {
		return this.chain;
	}

	@Override
	public void chat(ChatRequest request, StreamingChatResponseHandler handler) {
		serve(request, null, handler);
	}

	@Override
	public void chat(ChatRequest request, ChatRequestOptions options, StreamingChatResponseHandler handler) {
		serve(request, options, handler);
	}

	@Override
	public void doChat(ChatRequest request, StreamingChatResponseHandler handler) {
		serve(request, null, handler);
	}

	/**
	 * The chain's stream of events; what {@code chat} hands to its handler. Each event is
	 * one callback of LangChain4j's handler, replayed on the caller's.
	 */
	public Flux<Event> stream(ChatRequest request) {
		return stream(request, null);
	}

	private Flux<Event> stream(ChatRequest request, @Nullable ChatRequestOptions options) {
		Objects.requireNonNull(request, "request");
		StreamingTargetCall<Event> call = (attempt) -> Flux.create((sink) -> {
			StreamingChatModel model = model(attempt);
			TargetHandler target = new TargetHandler(sink, attempt);
			sink.onDispose(target::cancel);
			ChatRequest forTarget = TargetRequests.forTarget(request, attempt);
			if (options != null) {
				model.chat(forTarget, options, target);
			}
			else {
				model.chat(forTarget, target);
			}
		});
		return this.resilience.stream(this.chain, call);
	}

	private void serve(ChatRequest request, @Nullable ChatRequestOptions options,
			StreamingChatResponseHandler handler) {
		Objects.requireNonNull(handler, "handler");
		AtomicReference<@Nullable Disposable> subscription = new AtomicReference<>();
		StreamingHandle handle = new StreamingHandle() {

			private volatile boolean cancelled;

			@Override
			public void cancel() {
				this.cancelled = true;
				Disposable disposable = subscription.get();
				if (disposable != null) {
					disposable.dispose();
				}
			}

			@Override
			public boolean isCancelled() {
				return this.cancelled;
			}

		};
		subscription
			.set(stream(request, options).subscribe((event) -> event.deliver(handler, handle), handler::onError));
	}

	private StreamingChatModel model(Attempt attempt) {
		StreamingChatModel model = this.models.get(attempt.target().name());
		if (model == null) {
			throw new IllegalStateException("Target " + attempt.target().name() + " of chain " + this.chain
					+ " has no LangChain4j streaming chat model");
		}
		return model;
	}

	@Override
	public String toString() {
		return "ResilientStreamingChatModel[chain=" + this.chain + ", targets=" + this.models.keySet() + "]";
	}

	/**
	 * One callback of a LangChain4j stream, replayed on the caller's handler with the
	 * caller's handle (which cancels the chain's stream).
	 */
	@FunctionalInterface
	public interface Event {

		void deliver(StreamingChatResponseHandler handler, StreamingHandle handle);

	}

	/** The handler given to a target's model: its callbacks become the attempt's Flux. */
	private static final class TargetHandler implements StreamingChatResponseHandler {

		private final FluxSink<Event> sink;

		private final Attempt attempt;

		private final AtomicReference<@Nullable StreamingHandle> handle = new AtomicReference<>();

		private volatile boolean cancelled;

		TargetHandler(FluxSink<Event> sink, Attempt attempt) {
			this.sink = sink;
			this.attempt = attempt;
		}

		/**
		 * The attempt is left (timeout, failover, the caller's cancel): stop the model.
		 */
		void cancel() {
			this.cancelled = true;
			StreamingHandle model = this.handle.get();
			if (model != null && !model.isCancelled()) {
				model.cancel();
			}
		}

		private void seen(StreamingHandle model) {
			this.handle.set(model);
			if (this.cancelled && !model.isCancelled()) {
				model.cancel();
			}
		}

		@Override
		public void onPartialResponse(PartialResponse partial, PartialResponseContext context) {
			seen(context.streamingHandle());
			this.sink.next((handler, handle) -> handler.onPartialResponse(partial, new PartialResponseContext(handle)));
		}

		@Override
		public void onPartialResponse(String partial) {
			this.sink.next((handler, handle) -> handler.onPartialResponse(partial));
		}

		@Override
		public void onPartialThinking(PartialThinking thinking, PartialThinkingContext context) {
			seen(context.streamingHandle());
			this.sink
				.next((handler, handle) -> handler.onPartialThinking(thinking, new PartialThinkingContext(handle)));
		}

		@Override
		public void onPartialThinking(PartialThinking thinking) {
			this.sink.next((handler, handle) -> handler.onPartialThinking(thinking));
		}

		@Override
		public void onPartialToolCall(PartialToolCall call, PartialToolCallContext context) {
			seen(context.streamingHandle());
			this.sink.next((handler, handle) -> handler.onPartialToolCall(call, new PartialToolCallContext(handle)));
		}

		@Override
		public void onPartialToolCall(PartialToolCall call) {
			this.sink.next((handler, handle) -> handler.onPartialToolCall(call));
		}

		@Override
		public void onCompleteToolCall(CompleteToolCall call) {
			this.sink.next((handler, handle) -> handler.onCompleteToolCall(call));
		}

		@Override
		public void onCompleteResponse(ChatResponse response) {
			TargetRequests.reported(this.attempt, response);
			this.sink.next((handler, handle) -> handler.onCompleteResponse(response));
			this.sink.complete();
		}

		@Override
		public void onError(Throwable error) {
			this.sink.error(error);
		}

	}

}
