package io.github.llmresilience.execute;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.state.TargetState.BreakerState;
import io.github.llmresilience.test.FakeProvider.Reply;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.core.codec.DecodingException;
import org.springframework.web.client.RestClientException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Only transport errors, timeouts and provider answers count against a provider: the
 * caller's own failure after a healthy answer reaches it unchanged, after one request,
 * with no breaker record, no retry and no failover.
 */
class CallersOwnErrorTests {

	private final EngineHarness h = new EngineHarness();

	@AfterEach
	void close() {
		this.h.close();
	}

	@Test
	void aDecodingErrorAfterAHealthy200ReachesTheCallerAfterOneRequestAndOpensNoBreaker() {
		List<String> reported = new CopyOnWriteArrayList<>();
		this.h.provider.always("primary", Reply.ok(FakeProviderBodies.OK));
		this.h.provider.always("secondary", Reply.ok(FakeProviderBodies.OK_SECONDARY));
		this.h.build(
				(builder) -> builder.unclassifiedListener(
						(provider, status, type) -> reported.add(provider + "/" + status + "/" + type)),
				"primary", "secondary");

		for (int i = 0; i < 12; i++) {
			Throwable error = failure(this.h.resilience.execute("chat", this::decodeAsNumber));
			assertThat(error).isInstanceOf(DecodingException.class);
		}
		assertThat(this.h.provider.requests("primary")).isEqualTo(12);
		assertThat(this.h.provider.requests("secondary")).isZero();
		BreakerState metrics = this.h.resilience.state().target("primary").breaker();
		assertThat(metrics.bufferedCalls()).isZero();
		assertThat(this.h.resilience.breaker("primary").state()).isEqualTo(CircuitBreaker.State.CLOSED);
		assertThat(reported).hasSize(12).containsOnly("openai/0/DecodingException");
	}

	@Test
	void aBlockingCallersMappingFailureAfterA200ReachesTheCallerUnchanged() {
		this.h.provider.always("primary", Reply.ok(FakeProviderBodies.OK));
		this.h.provider.always("secondary", Reply.ok(FakeProviderBodies.OK_SECONDARY));
		this.h.build((builder) -> {
		}, "primary", "secondary");

		CompletableFuture<Integer> answer = CompletableFuture.supplyAsync(() -> this.h.resilience.call("chat",
				(attempt) -> this.h.restClient.post()
					.uri(attempt.target().baseUrl() + "/v1/chat/completions")
					.body("{}")
					.retrieve()
					.body(Integer.class)));
		assertThat(answer).failsWithin(Duration.ofSeconds(10))
			.withThrowableThat()
			.havingCause()
			.isInstanceOf(RestClientException.class);
		assertThat(this.h.provider.totalRequests()).isEqualTo(1);
		assertThat(this.h.resilience.state().target("primary").breaker().bufferedCalls()).isZero();
	}

	@Test
	void aNullPointerExceptionOfTheCallerIsNeitherRetriedNorFailedOver() {
		this.h.provider.always("secondary", Reply.ok(FakeProviderBodies.OK_SECONDARY));
		this.h.build((builder) -> {
		}, "primary", "secondary");

		Throwable error = failure(this.h.resilience.execute("chat", (attempt) -> Mono.fromCallable(() -> {
			String missing = null;
			return missing.length();
		})));
		assertThat(error).isInstanceOf(NullPointerException.class);
		assertThat(this.h.provider.totalRequests()).isZero();
		assertThat(this.h.resilience.state().target("primary").breaker().bufferedCalls()).isZero();
	}

	@Test
	void withUnknownExceptionsSetToProviderAnUnknownExceptionIsAnAvailabilityFailureAsBefore() {
		List<String> reported = new CopyOnWriteArrayList<>();
		this.h.provider.always("secondary", Reply.ok(FakeProviderBodies.OK_SECONDARY));
		this.h.build((builder) -> builder.retry(PermitSettlementTests.oneAttempt())
			.unknownExceptions(UnknownExceptions.PROVIDER)
			.unclassifiedListener((provider, status, type) -> reported.add(provider + "/" + status + "/" + type)),
				"primary", "secondary");

		String answer = this.h.time.await(
				this.h.resilience.execute("chat",
						(attempt) -> attempt.target().name().equals("primary")
								? Mono.error(new IllegalStateException("client bug")) : this.h.webClientCall(attempt)),
				this.h.inFlight::get);
		assertThat(answer).isEqualTo(FakeProviderBodies.OK_SECONDARY);
		assertThat(reported).containsExactly("openai/0/IllegalStateException");
		assertThat(this.h.resilience.state().target("primary").breaker().failedCalls()).isEqualTo(1);
	}

	@Test
	void aTransportFailureIsStillTheProvidersAndFailsOver() {
		this.h.provider.always("secondary", Reply.ok(FakeProviderBodies.OK_SECONDARY));
		this.h.build((builder) -> builder.retry(PermitSettlementTests.oneAttempt()), "primary", "secondary");

		String answer = this.h.time.await(this.h.resilience.execute("chat",
				(attempt) -> attempt.target().name().equals("primary")
						? this.h.webClient.post().uri("http://127.0.0.1:1/v1").retrieve().bodyToMono(String.class)
						: this.h.webClientCall(attempt)),
				this.h.inFlight::get);
		assertThat(answer).isEqualTo(FakeProviderBodies.OK_SECONDARY);
		assertThat(this.h.resilience.state().target("primary").breaker().failedCalls()).isEqualTo(1);
	}

	@Test
	void theRejectionOfARequestStillCarriesItsVerdict() {
		this.h.provider.always("primary", Reply.json(400, EngineHarness.fixture("openai-400-context-length-exceeded")));
		this.h.build((builder) -> {
		}, "primary");
		assertThat(this.h.chatFailure()).isInstanceOfSatisfying(LlmRejectedException.class,
				(rejected) -> assertThat(rejected.verdict().outcome()).isEqualTo(Outcome.REQUEST));
	}

	private Mono<Integer> decodeAsNumber(Attempt attempt) {
		return Mono.defer(() -> {
			this.h.inFlight.incrementAndGet();
			return this.h.webClient.post()
				.uri(attempt.target().baseUrl() + "/v1/chat/completions")
				.bodyValue("{}")
				.retrieve()
				.bodyToMono(Integer.class);
		}).doFinally((signal) -> this.h.inFlight.decrementAndGet());
	}

	private Throwable failure(Mono<?> call) {
		CompletableFuture<?> future = call.toFuture();
		try {
			this.h.time.await(future, this.h.inFlight::get);
		}
		catch (Throwable ex) {
			// The future keeps the original error.
		}
		assertThat(future).isCompletedExceptionally();
		return future.handle((value, error) -> (error instanceof CompletionException) ? error.getCause() : error)
			.join();
	}

}
