package io.github.llmresilience.execute;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import io.github.llmresilience.target.Target;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Every call has a deadline ({@code timeouts.call} unless the caller gives one), and a
 * timed-out attempt is retried on the same target only when a whole new attempt fits.
 */
class CallDeadlineTests {

	private final EngineHarness h = new EngineHarness();

	@AfterEach
	void close() {
		this.h.close();
	}

	@Test
	void aHangingOnlyTargetEndsTheCallAtItsAttemptTimeoutUnderTheDefaultDeadline() {
		this.h.provider.always("primary", Reply.hang());
		this.h.build((builder) -> {
		}, "primary");

		CompletableFuture<String> answer = this.h.resilience.execute("chat", this::hangingCall).toFuture();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.h.provider.requests("primary") == 1);
		this.h.time.advance(Duration.ofSeconds(30));
		Throwable failure = failure(answer);
		assertThat(failure).isInstanceOf(LlmUnavailableException.class);
		// 30 s were spent; a retry would need another 30 s and the deadline leaves 30 s.
		assertThat(this.h.time.elapsed()).isEqualTo(Duration.ofSeconds(30));
		assertThat(this.h.provider.requests("primary")).isEqualTo(1);
	}

	@Test
	void aTimedOutAttemptIsRetriedWhenTheCallersDeadlineLeavesRoomForAWholeAttempt() {
		this.h.provider.script("primary", (n) -> (n == 1) ? Reply.hang() : Reply.ok(FakeProviderBodies.OK));
		this.h.build((builder) -> {
		}, "primary");

		CompletableFuture<String> answer = this.h.resilience
			.execute("chat", CallOptions.deadline(Duration.ofMinutes(2)),
					(attempt) -> (attempt.targetAttempt() == 1) ? hangingCall(attempt) : this.h.webClientCall(attempt))
			.toFuture();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.h.provider.requests("primary") == 1);
		this.h.time.advance(Duration.ofSeconds(30));
		assertThat(this.h.time.await(answer, this.h.inFlight::get)).isEqualTo(FakeProviderBodies.OK);
		assertThat(this.h.provider.requests("primary")).isEqualTo(2);
	}

	@Test
	void aRetryAfterOf30SecondsOnEveryTargetKeepsTheCallWithinItsDefaultDeadline() {
		Reply busy = Reply.json(503, Map.of("retry-after", "30"), FakeProviderBodies.SERVER_ERROR);
		this.h.provider.always("primary", busy);
		this.h.provider.always("secondary", busy);
		this.h.build((builder) -> {
		}, "primary", "secondary");

		assertThat(this.h.chatFailure()).isInstanceOf(LlmUnavailableException.class);
		assertThat(this.h.time.elapsed()).isLessThanOrEqualTo(TimeoutSettings.DEFAULT_CALL);
	}

	@Test
	void aConfiguredCallTimeoutIsTheDefaultDeadline() {
		this.h.provider.always("primary", Reply.json(503, FakeProviderBodies.SERVER_ERROR));
		// Jitter fixed at half the 500 ms ceiling: the 250 ms backoff would end after the
		// deadline.
		this.h.build((builder) -> builder.timeouts(TimeoutSettings.defaults().withCall(Duration.ofMillis(100)))
			.random(() -> 0.5), "primary");

		LlmUnavailableException unavailable = (LlmUnavailableException) this.h.chatFailure();
		assertThat(this.h.time.elapsed()).isLessThanOrEqualTo(Duration.ofMillis(100));
		assertThat(this.h.provider.requests("primary")).isEqualTo(1);
		assertThat(unavailable.steps()).hasSize(1);
	}

	@Test
	void onTheSystemClockAHangingTargetIsGivenUpAtTheCallDeadline() {
		try (FakeProvider provider = new FakeProvider()) {
			provider.always("primary", Reply.hang());
			LlmResilience resilience = LlmResilience.builder()
				.clock(Clock.systemUTC())
				.target(new Target("primary", "openai", "acct", "gpt-4o", "us", URI.create(provider.baseUrl("primary")),
						null))
				.chain("chat", "primary")
				.timeouts(TimeoutSettings.defaults().withCall(Duration.ofMillis(400)))
				.build();
			long start = System.nanoTime();
			Object outcome = resilience.execute("chat", this::hangingCall)
				.map(Object.class::cast)
				.onErrorResume(Mono::just)
				.block(Duration.ofSeconds(20));
			Duration took = Duration.ofNanos(System.nanoTime() - start);
			assertThat(outcome).isInstanceOf(LlmUnavailableException.class);
			assertThat(took).isBetween(Duration.ofMillis(350), Duration.ofSeconds(10));
			assertThat(provider.requests("primary")).isEqualTo(1);
		}
	}

	@Test
	void aDeadlineBeyondAYearIsRefusedNamingTheOption() {
		assertThatIllegalArgumentException().isThrownBy(() -> CallOptions.deadline(Duration.ofDays(200_000)))
			.withMessageContaining("deadline")
			.withMessageContaining("366 days");
	}

	private Mono<String> hangingCall(Attempt attempt) {
		// Not counted in flight: virtual time may move while it hangs.
		return this.h.webClient.post()
			.uri(attempt.target().baseUrl() + "/v1/chat/completions")
			.bodyValue("{}")
			.retrieve()
			.bodyToMono(String.class);
	}

	private static Throwable failure(CompletableFuture<?> future) {
		await().atMost(Duration.ofSeconds(10)).until(future::isDone);
		return future.handle((value, error) -> (error instanceof CompletionException) ? error.getCause() : error)
			.join();
	}

}
