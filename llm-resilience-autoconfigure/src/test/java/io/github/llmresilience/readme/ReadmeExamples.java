package io.github.llmresilience.readme;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.github.llmresilience.canary.CanaryJudge;
import io.github.llmresilience.canary.CanaryProbe;
import io.github.llmresilience.execute.Attempt;
import io.github.llmresilience.execute.BlockingTargetCall;
import io.github.llmresilience.execute.CallOptions;
import io.github.llmresilience.execute.LlmFallback;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.execute.TargetCall;
import io.github.llmresilience.state.TargetState.BreakerState;
import io.github.llmresilience.state.TargetState;
import io.github.llmresilience.web.LlmResilienceClientHttpRequestInterceptor;
import io.github.llmresilience.web.LlmResilienceExchangeFilterFunction;
import io.github.llmresilience.web.stream.OpenAiChatStream;
import io.github.llmresilience.web.stream.StreamChunk;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.http.MediaType;
import org.springframework.stereotype.Service;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * The code examples of README.md and of docs/calls.md, docs/pools.md and docs/canary.md,
 * as written there: if one stops compiling, so does the test suite.
 * {@code ReadmeExamplesTests} runs the first against a real server.
 */
final class ReadmeExamples {

	private ReadmeExamples() {
	}

	// "Reactive, with WebClient"
	@Service
	static class Answers {

		private final LlmResilience resilience;

		private final WebClient http = WebClient.create();

		Answers(LlmResilience resilience) {
			this.resilience = resilience;
		}

		Mono<String> answer(String question) {
			return resilience.execute("chat", Duration.ofSeconds(20),
					attempt -> http.post()
						.uri(attempt.target().baseUrl() + "/v1/chat/completions")
						.header("Authorization", "Bearer " + attempt.target().apiKey().reveal())
						.header("Idempotency-Key", attempt.idempotencyKey())
						.bodyValue(Map.of("model", attempt.target().model(), "messages",
								List.of(Map.of("role", "user", "content", question))))
						.retrieve()
						.bodyToMono(String.class));
		}

	}

	// "Blocking, with RestClient or a vendor SDK"
	static String blocking(LlmResilience resilience, RestClient restClient, Object request) {
		String text = resilience.call("chat",
				attempt -> restClient.post()
					.uri(attempt.target().baseUrl() + "/v1/messages")
					.header("x-api-key", attempt.target().apiKey().reveal())
					.body(request)
					.retrieve()
					.body(String.class));
		return text;
	}

	// docs/calls.md, "One target, no chain"
	static void oneTarget(LlmResilience resilience) {
		WebClient openai = WebClient.builder()
			.baseUrl("https://api.openai.com")
			.filter(new LlmResilienceExchangeFilterFunction(resilience, "openai-primary"))
			.build();

		RestClient claude = RestClient.builder()
			.baseUrl("https://api.anthropic.com")
			.requestInterceptor(new LlmResilienceClientHttpRequestInterceptor(resilience, "claude-backup"))
			.build();
	}

	// docs/calls.md, "Hand the answer over: tokens and headers"
	static Mono<String> handedOver(LlmResilience resilience, WebClient webClient, Object request) {
		Mono<String> answer = resilience.execute("chat",
				(attempt) -> webClient.post()
					.uri(attempt.target().baseUrl() + "/v1/chat/completions")
					.bodyValue(request)
					.retrieve()
					.toEntity(String.class)
					.map((entity) -> {
						attempt.answered(entity.getHeaders().asMultiValueMap(), entity.getBody());
						return entity.getBody();
					}));
		return answer;
	}

	// README "Share a quota between traffic classes", docs/pools.md "Naming the traffic
	// class"
	static void pools(LlmResilience resilience, TargetCall<String> call, BlockingTargetCall<String> blocking) {
		resilience.execute("chat", call); // interactive
		resilience.execute("chat", CallOptions.pool("background"), call); // a job
		resilience.call("chat", CallOptions.pool("evaluation").withDeadline(Duration.ofMinutes(15)), blocking);
	}

	// docs/calls.md, "Degraded mode: an answer without any model"
	static Mono<Answer> degraded(LlmResilience resilience, Provider provider, Recent recent, String question) {
		Mono<Answer> answer = resilience.execute("chat", CallOptions.deadline(Duration.ofSeconds(20)),
				attempt -> provider.answer(attempt, question),
				degradation -> new Answer(recent.lastAnswerTo(question), LlmFallback.SERVED_BY));
		return answer;
	}

	record Answer(String text, String servedBy) {
	}

	interface Provider {

		Mono<Answer> answer(Attempt attempt, String question);

	}

	interface Recent {

		String lastAnswerTo(String question);

	}

	// docs/canary.md, "Your own request: CanaryProbe" (an SDK client in place of
	// Bedrock's)
	static final class Canaries {

		CanaryProbe canaryProbe(Function<String, String> bedrock) {
			return (request) -> Mono
				.fromCallable(() -> ask(bedrock, request.target().model(), "What is the capital of France? One word."));
		}

		CanaryJudge canaryJudge() { // with judge: predicate
			return (target, answer) -> answer.strip().equalsIgnoreCase("Paris");
		}

		private static String ask(Function<String, String> client, String model, String question) {
			return client.apply(model + ": " + question);
		}

	}

	// "Operate it", from code
	static void operate(LlmResilience resilience, org.slf4j.Logger log) {
		TargetState primary = resilience.state().target("primary");
		if (primary.breaker().status() == BreakerState.Status.OPEN) {
			log.warn("primary is out until {}", primary.availableAt());
		}
		resilience.operator().forceOpen("primary"); // held open until closed or reset
		resilience.operator().replaceChain("chat", List.of("secondary", "primary"));
	}

	// "Streaming"
	static Flux<StreamChunk> streaming(LlmResilience resilience, WebClient http, Object requestWithStreamTrue) {
		Flux<StreamChunk> tokens = resilience.stream("chat",
				attempt -> OpenAiChatStream.chunks(http.post()
					.uri(attempt.target().baseUrl() + "/v1/chat/completions")
					.header("Authorization", "Bearer " + attempt.target().apiKey().reveal())
					.accept(MediaType.TEXT_EVENT_STREAM)
					.bodyValue(requestWithStreamTrue)
					.retrieve()
					.bodyToFlux(OpenAiChatStream.EVENTS)));
		return tokens;
	}

}
