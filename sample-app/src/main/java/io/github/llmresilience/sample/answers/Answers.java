package io.github.llmresilience.sample.answers;

import java.util.Optional;

import io.github.llmresilience.execute.Attempt;
import io.github.llmresilience.execute.CallOptions;
import io.github.llmresilience.execute.LlmFallback;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.sample.provider.ProviderClient;
import io.github.llmresilience.state.ResilienceState;
import io.github.llmresilience.state.TargetState;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.stereotype.Service;

/**
 * Answers questions through an llm-resilience chain: the library picks the target, the
 * {@link ProviderClient} speaks its format.
 */
@Service
@EnableConfigurationProperties(AnswersProperties.class)
public class Answers {

	private final LlmResilience resilience;

	private final ProviderClient client;

	private final AnswersProperties properties;

	private final RecentAnswers recent;

	public Answers(LlmResilience resilience, ProviderClient client, AnswersProperties properties,
			RecentAnswers recent) {
		this.resilience = resilience;
		this.client = client;
		this.properties = properties;
		this.recent = recent;
		// Fail at startup, not on the first question, when a chain names a vendor the
		// client cannot speak.
		ResilienceState state = this.resilience.state();
		state.chains().values().stream().flatMap((chain) -> chain.targets().stream()).distinct().forEach((name) -> {
			TargetState target = state.target(name);
			if (!ProviderClient.supportedProviders().contains(target.provider())) {
				throw new IllegalStateException("Target '" + name + "' has provider '" + target.provider()
						+ "'; the sample app speaks " + ProviderClient.supportedProviders());
			}
		});
	}

	/** The chain answers go through. */
	public String chain() {
		return this.properties.getChain();
	}

	/** Answer through the configured chain. */
	public Mono<Answer> answer(String question) {
		return answer(this.properties.getChain(), question);
	}

	/**
	 * Answer through the configured chain, with the fallback's answer when no target can
	 * serve.
	 */
	public Mono<Answer> answer(String question, LlmFallback<Answer> fallback) {
		return this.resilience.execute(this.properties.getChain(), CallOptions.deadline(this.properties.getDeadline()),
				(attempt) -> call(attempt, question), fallback);
	}

	/**
	 * Answer through a chain.
	 * @return the answer, or an {@code LlmUnavailableException} or
	 * {@code LlmRejectedException}
	 */
	public Mono<Answer> answer(String chain, String question) {
		return this.resilience.execute(chain, CallOptions.deadline(this.properties.getDeadline()),
				(attempt) -> call(attempt, question));
	}

	private Mono<Answer> call(Attempt attempt, String question) {
		return this.client.answer(attempt, question)
			.map((text) -> new Answer(text, attempt.target().name()))
			.doOnNext((answer) -> this.recent.remember(question, answer));
	}

	/** Whether the answers API answers degraded when no target can serve. */
	public boolean degraded() {
		return this.properties.isDegraded();
	}

	/**
	 * The first target of the chain that could be called now (account, quota scope and
	 * breaker all allow it).
	 */
	public Optional<TargetState> firstUsableTarget(String chain) {
		ResilienceState state = this.resilience.state();
		return state.chain(chain).targets().stream().map(state::target).filter(TargetState::usable).findFirst();
	}

	/**
	 * Stream the answer through the configured chain: until the first token the chain
	 * skips, retries and fails over as for a non-streaming answer; after it, a failure
	 * ends the stream with {@code LlmStreamInterruptedException} and is not restarted
	 * elsewhere.
	 */
	public Flux<Token> stream(String question) {
		return this.resilience.stream(this.properties.getChain(), CallOptions.deadline(this.properties.getDeadline()),
				(attempt) -> streamCall(attempt, question));
	}

	/**
	 * Stream the answer through the configured chain, with the fallback's answer as the
	 * one token when no target can serve before the first token.
	 */
	public Flux<Token> stream(String question, LlmFallback<Token> fallback) {
		return this.resilience.stream(this.properties.getChain(), CallOptions.deadline(this.properties.getDeadline()),
				(attempt) -> streamCall(attempt, question), fallback);
	}

	private Flux<Token> streamCall(Attempt attempt, String question) {
		return this.client.stream(attempt, question).map((text) -> new Token(text, attempt.target().name()));
	}

	/**
	 * One piece of a streamed answer.
	 *
	 * @param text the text
	 * @param servedBy the target that streams it
	 */
	public record Token(String text, String servedBy) {

	}

}
