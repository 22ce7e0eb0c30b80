package io.github.llmresilience.execute;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.llmresilience.hedge.HedgingSettings;
import io.github.llmresilience.retry.RetrySettings;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.test.FakeProvider.Reply;
import io.github.llmresilience.timeout.AdaptiveSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Hedging of reactive calls ({@code hedging.calls}), over real HTTP on virtual time: the
 * race is to the answer, and off unless asked for.
 */
class HedgedCallTests {

	private static final Duration DELAY = Duration.ofSeconds(1);

	private final EngineHarness h = new EngineHarness();

	private final List<String> told = new CopyOnWriteArrayList<>();

	@AfterEach
	void close() {
		this.h.close();
	}

	@Test
	void aCallWhoseAnswerIsLateIsHedgedAndTheHedgesAnswerWins() throws Exception {
		this.h.provider.always("primary", Reply.hang());
		this.h.provider.always("secondary", Reply.ok(FakeProviderBodies.OK_SECONDARY));
		build(true);

		CompletableFuture<String> answer = this.h.resilience.execute("chat", this.h::webClientCall).toFuture();
		soon().until(() -> this.h.provider.requests("primary") == 1);
		this.h.time.advance(DELAY);

		assertThat(answer.get(10, TimeUnit.SECONDS)).isEqualTo(FakeProviderBodies.OK_SECONDARY);
		assertThat(this.told).containsExactly("hedge sent secondary", "hedge won secondary", "served secondary 1",
				"ended 1000ms");
		assertThat(this.h.idempotencyKeys).hasSize(2);
		assertThat(this.h.idempotencyKeys.get(0)).isEqualTo(this.h.idempotencyKeys.get(1));
		assertThat(this.h.resilience.state().target("primary").breaker().bufferedCalls()).isZero();
	}

	@Test
	void whenThePrimarysAnswerComesFirstTheHedgeIsCancelled() throws Exception {
		this.h.provider.always("primary", Reply.ok(FakeProviderBodies.OK));
		this.h.provider.always("secondary", Reply.hang());
		build(true);

		// The primary's request goes out after 1.5 s, and is answered at once.
		CompletableFuture<String> answer = this.h.resilience.execute("chat",
				(attempt) -> attempt.target().name().equals("primary")
						? Mono.delay(Duration.ofMillis(1500), this.h.time).then(this.h.webClientCall(attempt))
						: this.h.webClientCall(attempt))
			.toFuture();
		this.h.time.advance(DELAY);
		soon().until(() -> this.h.provider.requests("secondary") == 1);
		this.h.time.advance(Duration.ofMillis(500));

		assertThat(answer.get(10, TimeUnit.SECONDS)).isEqualTo(FakeProviderBodies.OK);
		assertThat(this.told).containsExactly("hedge sent secondary", "hedge cancelled secondary", "served primary 0",
				"ended 1500ms");
		assertThat(this.h.resilience.state().target("secondary").breaker().bufferedCalls()).isZero();
	}

	@Test
	void callsAreNotHedgedUnlessAskedFor() throws Exception {
		this.h.provider.always("primary", Reply.hang());
		this.h.provider.always("secondary", Reply.ok(FakeProviderBodies.OK_SECONDARY));
		build(false);

		CompletableFuture<String> answer = this.h.resilience.execute("chat", (attempt) -> this.h.webClientCall(attempt))
			.toFuture();
		soon().until(() -> this.h.provider.requests("primary") == 1);
		this.h.time.advance(DELAY.multipliedBy(5));
		assertThat(this.h.provider.requests("secondary")).isZero();
		// Only the attempt's own timeout moves the call on.
		this.h.time.advance(Duration.ofSeconds(25));
		assertThat(answer.get(10, TimeUnit.SECONDS)).isEqualTo(FakeProviderBodies.OK_SECONDARY);
		assertThat(this.told).noneMatch((line) -> line.startsWith("hedge"));
	}

	private void build(boolean calls) {
		this.h.build((builder) -> builder
			.hedging(HedgingSettings.defaults().withEnabled(true).withCalls(calls).withDelay(DELAY))
			.timeouts(new TimeoutSettings(Duration.ofSeconds(30), Duration.ofSeconds(5), Duration.ofSeconds(10),
					AdaptiveSettings.disabled()))
			.retry(new RetrySettings(1, Duration.ofMillis(500), Duration.ofSeconds(30), 0.1, Duration.ofSeconds(10), 3))
			.observer(new CallObserver() {

				@Override
				public void onHedge(String chain, Target target, HedgeResult result) {
					HedgedCallTests.this.told.add("hedge " + result.name().toLowerCase() + " " + target.name());
				}

				@Override
				public void onServed(String chain, Target target, int position, long nanos) {
					HedgedCallTests.this.told.add("served " + target.name() + " " + position);
				}

				@Override
				public void onUnavailable(String chain, LlmUnavailableException exception, long nanos) {
					HedgedCallTests.this.told.add("unavailable");
				}

				@Override
				public void onCallEnded(String chain, long nanos, long backoffNanos) {
					HedgedCallTests.this.told.add("ended " + TimeUnit.NANOSECONDS.toMillis(nanos) + "ms");
				}

			}), "primary", "secondary");
	}

	private static org.awaitility.core.ConditionFactory soon() {
		return await().atMost(Duration.ofSeconds(10)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1));
	}

}
