package io.github.llmresilience.execute;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.execute.ChainStep.Skip;
import io.github.llmresilience.extract.ErrorExtractors;
import io.github.llmresilience.overload.ClientThrottlingSettings;
import io.github.llmresilience.overload.ConcurrencySettings;
import io.github.llmresilience.overload.ConcurrencySettings.Algorithm;
import io.github.llmresilience.overload.OverloadState;
import io.github.llmresilience.pool.PoolSettings;
import io.github.llmresilience.retry.RetrySettings;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import io.github.llmresilience.web.WebClientErrorExtractor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Overload control in the walk, with real HTTP to a fake provider on virtual time: a call
 * over its failure domain's limit goes to the next target without a request, a provider
 * that refuses more than it accepts is refused here (background first), a healthy one
 * never is, and a call that no target has room for waits for a place within its pool's
 * wait, then fails with a truthful retry time. One test on the system clock.
 */
class OverloadControlTests {

	private final EngineHarness h = new EngineHarness();

	@AfterEach
	void close() {
		this.h.close();
	}

	@Test
	void aCallOverItsDomainsLimitGoesToTheNextTargetWithoutARequest() {
		this.h.provider.always("primary", Reply.hang());
		this.h.provider.always("secondary", Reply.ok(FakeProviderBodies.OK));
		this.h.build((builder) -> builder.concurrency(new ConcurrencySettings(true, Algorithm.AIMD, 2, 1, 2))
			.retry(noRetries()), "primary", "secondary");

		CompletableFuture<String> first = this.h.resilience.execute("chat", this::call).toFuture();
		CompletableFuture<String> second = this.h.resilience.execute("chat", this::call).toFuture();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.h.provider.requests("primary") == 2);
		assertThat(overload("primary").inFlight()).isEqualTo(2);

		// The third call finds the domain at its limit: the secondary serves it at once.
		// Virtual time stands still meanwhile: moved, it would time the two out early.
		CompletableFuture<String> third = this.h.resilience.execute("chat", this::call).toFuture();
		await().atMost(Duration.ofSeconds(10)).until(third::isDone);
		assertThat(third.join()).isEqualTo(FakeProviderBodies.OK);
		assertThat(this.h.provider.requests("primary")).isEqualTo(2);
		assertThat(this.h.provider.requests("secondary")).isEqualTo(1);

		// The two in flight time out: drops, which cut the limit; they fail over.
		this.h.time.advance(Duration.ofSeconds(30));
		assertThat(this.h.time.await(first, this.h.inFlight::get)).isEqualTo(FakeProviderBodies.OK);
		assertThat(this.h.time.await(second, this.h.inFlight::get)).isEqualTo(FakeProviderBodies.OK);
		assertThat(overload("primary").limit()).isEqualTo(1);
		assertThat(overload("primary").inFlight()).isZero();
		assertThat(overload("secondary").inFlight()).isZero();
		assertThat(this.h.events(StateChange.Kind.CONCURRENCY_LIMIT_HALVED)).hasSize(1);
	}

	@Test
	void aStreamHoldsItsPlaceUntilItEndsNotOnlyUntilItsFirstToken() {
		this.h.provider.always("secondary", Reply.ok(FakeProviderBodies.OK));
		Sinks.Many<String> tokens = Sinks.many().unicast().onBackpressureBuffer();
		this.h.build((builder) -> builder.concurrency(new ConcurrencySettings(true, Algorithm.AIMD, 1, 1, 1))
			.retry(noRetries()), "primary", "secondary");

		List<String> received = new CopyOnWriteArrayList<>();
		this.h.resilience.stream("chat", (attempt) -> tokens.asFlux()).subscribe(received::add);
		tokens.tryEmitNext("first");
		await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 1);

		// The provider is still generating: the domain has no place for another call.
		// Virtual time stands still meanwhile: moved, it would reach the stream's stall
		// timeout and end it.
		CompletableFuture<String> other = this.h.resilience.execute("chat", this::call).toFuture();
		await().atMost(Duration.ofSeconds(10)).until(other::isDone);
		assertThat(other.join()).isEqualTo(FakeProviderBodies.OK);
		assertThat(this.h.provider.requests("secondary")).isEqualTo(1);
		assertThat(overload("primary").inFlight()).isEqualTo(1);

		tokens.tryEmitComplete();
		await().atMost(Duration.ofSeconds(10)).until(() -> overload("primary").inFlight() == 0);
	}

	@Test
	void aCallNoTargetHasRoomForWaitsForAPlaceWithinItsPoolsWait() {
		this.h.provider.always("primary", Reply.ok(FakeProviderBodies.OK));
		Sinks.One<String> held = Sinks.one();
		this.h.build((builder) -> builder.concurrency(new ConcurrencySettings(true, Algorithm.AIMD, 1, 1, 1))
			.retry(noRetries()), "primary");

		CompletableFuture<String> first = this.h.resilience.execute("chat", (attempt) -> held.asMono()).toFuture();
		CompletableFuture<String> second = this.h.resilience.execute("chat", this.h::webClientCall).toFuture();
		assertThat(this.h.provider.requests("primary")).isZero();
		assertThat(second).isNotDone();

		// The call in flight ends: the waiting call takes its place, within interactive's
		// 2 s.
		Instant start = this.h.time.instant();
		held.tryEmitValue("held");
		assertThat(first.join()).isEqualTo("held");
		assertThat(this.h.time.await(second, this.h.inFlight::get)).isEqualTo(FakeProviderBodies.OK);
		assertThat(this.h.provider.requests("primary")).isEqualTo(1);
		assertThat(Duration.between(start, this.h.time.instant())).isLessThan(Duration.ofSeconds(2));
	}

	@Test
	void aCallThatWaitedItsPoolsWaitForAPlaceFailsWithTheSkip() {
		this.h.build((builder) -> builder.concurrency(new ConcurrencySettings(true, Algorithm.AIMD, 1, 1, 1))
			.retry(noRetries()), "primary");
		this.h.resilience.execute("chat", (attempt) -> Sinks.<String>one().asMono()).subscribe();

		Instant start = this.h.time.instant();
		Throwable failure = this.h.chatFailure();
		assertThat(failure).isInstanceOf(LlmUnavailableException.class);
		assertThat(((LlmUnavailableException) failure).steps()).extracting(ChainStep::skipped)
			.containsOnly(Skip.AT_CONCURRENCY_LIMIT);
		Instant end = this.h.time.instant();
		assertThat(Duration.between(start, end)).isBetween(Duration.ofMillis(1_900), Duration.ofSeconds(2));
		// When to come back: when a place may free up, never in the past.
		assertThat(((LlmUnavailableException) failure).retryAfter()).isAfterOrEqualTo(end)
			.isBefore(end.plusSeconds(31));
		assertThat(this.h.provider.requests("primary")).isZero();
	}

	@Test
	void aCallFunctionThatThrowsGivesItsPlaceBack() {
		this.h.provider.always("primary", Reply.ok(FakeProviderBodies.OK));
		this.h.build((builder) -> builder.concurrency(new ConcurrencySettings(true, Algorithm.AIMD, 1, 1, 1)),
				"primary");

		for (int i = 0; i < 5; i++) {
			// The caller's own bug, before and after the request: never the provider's.
			assertThatThrownBy(() -> this.h.resilience.call("chat", (attempt) -> {
				throw new IllegalStateException("the caller's bug");
			})).isInstanceOf(IllegalStateException.class);
			assertThatThrownBy(() -> this.h.time.await(this.h.resilience.execute("chat",
					(attempt) -> this.h.webClientCall(attempt).map((body) -> body.substring(body.length() + 1))),
					this.h.inFlight::get))
				.isInstanceOf(StringIndexOutOfBoundsException.class);
		}
		assertThat(overload("primary").inFlight()).isZero();
		assertThat(overload("primary").limit()).isEqualTo(1);
		assertThat(this.h.chat()).isEqualTo(FakeProviderBodies.OK);
	}

	@Test
	void aHealthyProviderIsNeverRefusedHere() {
		// One answer in fifty fails, as on any day: nothing is refused.
		this.h.provider.script("primary", (n) -> (n % 50 == 0) ? Reply.json(503, FakeProviderBodies.SERVER_ERROR)
				: Reply.ok(FakeProviderBodies.OK));
		this.h.provider.always("secondary", Reply.ok(FakeProviderBodies.OK));
		this.h.build((builder) -> builder.retry(noRetries()).breaker(neverOpens()).random(() -> 0.0), "primary",
				"secondary");

		for (int i = 0; i < 300; i++) {
			this.h.chat(CallOptions.pool(PoolSettings.BACKGROUND));
		}
		assertThat(this.h.provider.requests("primary")).isEqualTo(300);
		assertThat(this.h.provider.requests("secondary")).isEqualTo(6);
		assertThat(this.h.events(StateChange.Kind.CLIENT_THROTTLING_STARTED)).isEmpty();
		assertThat(overload("primary").refusalProbability()).isZero();
	}

	@Test
	void aProviderThatRefusesMoreThanItAcceptsIsRefusedHereBackgroundFirst() {
		// One request in three is answered: K 2 refuses a third of background calls, K 3
		// (interactive) none.
		this.h.provider.script("primary", (n) -> (n % 3 == 0) ? Reply.ok(FakeProviderBodies.OK)
				: Reply.json(503, FakeProviderBodies.SERVER_ERROR));
		this.h.provider.always("secondary", Reply.ok(FakeProviderBodies.OK));
		this.h.build((builder) -> builder.retry(noRetries()).breaker(neverOpens()).random(() -> 0.1), "primary",
				"secondary");

		for (int i = 0; i < 30; i++) {
			this.h.chat(CallOptions.pool(PoolSettings.INTERACTIVE));
		}
		assertThat(this.h.provider.requests("primary")).isEqualTo(30);
		assertThat(this.h.events(StateChange.Kind.CLIENT_THROTTLING_STARTED)).hasSize(1);

		// Background: refused here, served by the secondary without a request to primary.
		this.h.chat(CallOptions.pool(PoolSettings.BACKGROUND));
		assertThat(this.h.provider.requests("primary")).isEqualTo(30);
		assertThat(overload("primary").refusalProbability()).isGreaterThan(0.3);
		assertThat(overload("secondary").refusalProbability()).isZero();
	}

	@Test
	void onTheSystemClockRefusingStopsOnceTheWindowHasPassed() {
		try (FakeProvider provider = new FakeProvider()) {
			provider.script("primary", (n) -> (n <= 10) ? Reply.json(503, FakeProviderBodies.SERVER_ERROR)
					: Reply.ok(FakeProviderBodies.OK));
			provider.always("secondary", Reply.ok(FakeProviderBodies.OK));
			List<StateChange> events = new CopyOnWriteArrayList<>();
			LlmResilienceBuilder builder = LlmResilience.builder()
				.clock(Clock.systemUTC())
				.retry(noRetries())
				.breaker(neverOpens())
				.extractors(ErrorExtractors.standard().with(List.of(new WebClientErrorExtractor())))
				.clientThrottling(new ClientThrottlingSettings(true, Duration.ofSeconds(1), 5, 2.0, Map.of()))
				.listener(events::add);
			builder.target(new Target("primary", "openai", "primary", "gpt-4o", "region-primary",
					URI.create(provider.baseUrl("primary")), null));
			builder.target(new Target("secondary", "openai", "secondary", "gpt-4o", "region-secondary",
					URI.create(provider.baseUrl("secondary")), null));
			builder.chain("chat", "primary", "secondary");
			try (LlmResilience resilience = builder.build()) {
				long start = System.nanoTime();
				for (int i = 0; i < 10; i++) {
					resilience.execute("chat", (attempt) -> EngineHarness.handOver(this.h.webClient, attempt))
						.block(Duration.ofSeconds(10));
				}
				assertThat(kinds(events)).contains(StateChange.Kind.CLIENT_THROTTLING_STARTED);
				// From 5 failures on, most calls were refused here and served by
				// secondary.
				int sent = provider.requests("primary");
				assertThat(sent).isLessThan(10);
				// Calls go on, four a second (below the minimum of 5 in a 1 s window):
				// once the window has passed the failures, nothing is refused, and
				// refusing stops.
				await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(250)).until(() -> {
					resilience.execute("chat", (attempt) -> EngineHarness.handOver(this.h.webClient, attempt))
						.block(Duration.ofSeconds(10));
					return kinds(events).contains(StateChange.Kind.CLIENT_THROTTLING_STOPPED);
				});
				Duration took = Duration.ofNanos(System.nanoTime() - start);
				assertThat(took).isBetween(Duration.ofMillis(900), Duration.ofSeconds(10));
				assertThat(provider.requests("primary")).isGreaterThan(sent);
			}
		}
	}

	private static List<StateChange.Kind> kinds(List<StateChange> events) {
		List<StateChange.Kind> kinds = new ArrayList<>();
		events.forEach((event) -> kinds.add(event.kind()));
		return kinds;
	}

	private OverloadState overload(String target) {
		return this.h.resilience.state().targets().get(target).overload();
	}

	/** A breaker that never opens: overload control alone decides here. */
	private static BreakerSettings neverOpens() {
		return new BreakerSettings(10_000, 10_000, 100, Duration.ofSeconds(10), 100, Duration.ofSeconds(30),
				Duration.ofMinutes(15), 1);
	}

	private static RetrySettings noRetries() {
		RetrySettings defaults = RetrySettings.defaults();
		return new RetrySettings(1, defaults.backoffBase(), defaults.backoffMax(), defaults.budgetRatio(),
				defaults.budgetWindow(), defaults.budgetMinimum());
	}

	/** Primary's requests hang uncounted (time may move); the rest are counted. */
	private Mono<String> call(Attempt attempt) {
		if (attempt.target().name().equals("primary")) {
			return this.h.webClient.post()
				.uri(attempt.target().baseUrl() + "/v1/chat/completions")
				.bodyValue("{}")
				.retrieve()
				.bodyToMono(String.class);
		}
		return this.h.webClientCall(attempt);
	}

	static Throwable failure(CompletableFuture<?> future) {
		await().atMost(Duration.ofSeconds(10)).until(future::isDone);
		return future.handle((value, error) -> (error instanceof CompletionException) ? error.getCause() : error)
			.join();
	}

}
