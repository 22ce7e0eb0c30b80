package io.github.llmresilience.execute;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.Stream;

import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.canary.CanaryProbe;
import io.github.llmresilience.canary.CanarySettings;
import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.classify.ClassificationRule;
import io.github.llmresilience.classify.ClassificationRules;
import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.extract.ErrorExtractors;
import io.github.llmresilience.retry.RetrySettings;
import io.github.llmresilience.state.TargetState.BreakerState.Status;
import io.github.llmresilience.target.Secret;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import io.github.llmresilience.web.WebClientErrorExtractor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A failure domain's canary reads its answer as a call's answer would be read: the
 * target's classifier (the user's rules first) gives the verdict, and a verdict on the
 * account (a revoked key, a spent quota, a rate limit) locks, parks or gates it as a
 * call's would, and is no verdict on the domain: the canary goes from the domain's next
 * usable account at once, or waits for one, without failing the trial. Two targets of one
 * domain on two accounts, on a real HTTP provider and virtual time.
 */
class CanaryAccountsTests {

	private static final Duration OPEN = Duration.ofSeconds(30);

	/** Four calls, 50 %, open 30 s doubling to 4 min, one trial. */
	private static final BreakerSettings BREAKER = new BreakerSettings(4, 4, 50, Duration.ofSeconds(10), 50, OPEN,
			Duration.ofMinutes(4), 1);

	private static final RetrySettings ONE_ATTEMPT = new RetrySettings(1, Duration.ofMillis(500),
			Duration.ofSeconds(30), 0.1, Duration.ofSeconds(10), 3);

	private static final String PROMPT = "Reply with the JSON {\"ok\":true} and nothing else";

	private static final String DOMAIN = "openai/gpt-4o/eu";

	private static final String REVOKED = EngineHarness.fixture("openai-401-invalid-api-key");

	private static final String QUOTA = EngineHarness.fixture("openai-429-insufficient-quota");

	private static final String RATE_LIMIT = EngineHarness.fixture("openai-429-tpm-rate-limit");

	private static final String CONTEXT_TOO_LONG = EngineHarness.fixture("openai-400-context-length-exceeded");

	private static final String FILTERED = EngineHarness.fixture("azure-400-content-filter-prompt-violence");

	private static final String FROM_FIRST = FakeProvider.openAiAnswer("Hello from first");

	private static final String FROM_SECOND = FakeProvider.openAiAnswer("Hello from second");

	private static final String FROM_OTHER = FakeProvider.openAiAnswer("Hello from other");

	private final EngineHarness h = new EngineHarness();

	private final AtomicReference<Reply> first = new AtomicReference<>(
			Reply.json(503, FakeProviderBodies.SERVER_ERROR));

	private final AtomicReference<Reply> second = new AtomicReference<>(
			Reply.json(503, FakeProviderBodies.SERVER_ERROR));

	@AfterEach
	void close() {
		this.h.close();
	}

	// The test: the first account cannot send, the second can

	static Stream<Arguments> accountAnswers() {
		return Stream.of(Arguments.of("key revoked", Reply.json(401, REVOKED)),
				Arguments.of("quota spent", Reply.json(429, QUOTA)),
				Arguments.of("rate limited", Reply.json(429, Map.of("retry-after", "20"), RATE_LIMIT)));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("accountAnswers")
	void theDomainClosesThroughACanaryFromItsSecondAccount(String why, Reply firstAnswer) {
		build((builder) -> builder.canary(CanarySettings.of(PROMPT)));
		Instant openUntil = openDomain();
		this.first.set(firstAnswer);
		this.second.set(Reply.ok(FROM_SECOND));
		this.h.time.advanceTo(openUntil);
		awaitTrial();
		assertThat(status()).isEqualTo(Status.CLOSED);
		assertThat(last(StateChange.Kind.BREAKER_CLOSED).detail())
			.isEqualTo("HALF_OPEN -> CLOSED (canary: answer passed (answer) from target 'second')");
		// Not a failed trial: the domain opened once, when the provider was down.
		assertThat(this.h.events(StateChange.Kind.BREAKER_OPENED)).hasSize(1);
		// One canary each: the first account's answer sent it to the second at once.
		assertThat(this.h.provider.requests("first")).isEqualTo(3);
		assertThat(this.h.provider.requests("second")).isEqualTo(3);
		// What the answer does to the first account is what a call's answer does.
		switch (why) {
			case "key revoked" ->
				assertThat(this.h.resilience.state().target("first").account().consecutiveCredentialErrors()).isOne();
			case "quota spent" -> assertThat(last(StateChange.Kind.ACCOUNT_PARKED).subject()).isEqualTo("a1");
			default -> {
				StateChange gated = last(StateChange.Kind.SCOPE_GATED);
				assertThat(gated.subject()).isEqualTo("a1/gpt-4o");
				assertThat(gated.until()).isEqualTo(openUntil.plusSeconds(20));
			}
		}
		// The second account serves the domain's calls.
		assertThat(chat()).isEqualTo(FROM_SECOND);
		assertThat(chat()).isEqualTo(FROM_SECOND);
		assertThat(this.h.provider.requests("second")).isEqualTo(5);
		assertThat(this.h.provider.requests("other")).isEqualTo(2);
	}

	@Test
	void aUsersRuleDecidesTheCanarysVerdictAsItDecidesACalls() {
		// 402 is no status the built-in table knows: a 4xx would be the request's fault.
		// The user's rule makes it a spent quota.
		build((builder) -> builder.canary(CanarySettings.of(PROMPT))
			.classificationRules(new ClassificationRules(
					List.of(new ClassificationRule("openai", "402", null, null, Outcome.QUOTA, null)))));
		Instant openUntil = openDomain();
		this.first.set(Reply.json(402, "{\"error\":{\"message\":\"Payment required\"}}"));
		this.second.set(Reply.ok(FROM_SECOND));
		this.h.time.advanceTo(openUntil);
		awaitTrial();
		assertThat(status()).isEqualTo(Status.CLOSED);
		assertThat(last(StateChange.Kind.ACCOUNT_PARKED).subject()).isEqualTo("a1");
		assertThat(this.h.events(StateChange.Kind.CANARY_WITHDRAWN)).isEmpty();
	}

	@Test
	void aCanaryProbesProviderErrorIsClassifiedAsACallsWouldBe() {
		// The application's own sender, on WebClient: its WebClientResponseException is
		// read by the same extractors and classifier as a call's.
		List<String> sentFrom = new CopyOnWriteArrayList<>();
		CanaryProbe probe = (request) -> {
			sentFrom.add(request.target().name());
			return this.h.webClient.post()
				.uri(request.target().baseUrl() + "/v1/chat/completions")
				.bodyValue("{}")
				.retrieve()
				.bodyToMono(String.class);
		};
		build((builder) -> builder.canaryProbe(probe));
		Instant openUntil = openDomain();
		this.first.set(Reply.json(429, QUOTA));
		this.second.set(Reply.ok(FROM_SECOND));
		this.h.time.advanceTo(openUntil);
		awaitTrial();
		assertThat(status()).isEqualTo(Status.CLOSED);
		assertThat(sentFrom).containsExactly("first", "second");
		assertThat(last(StateChange.Kind.ACCOUNT_PARKED).subject()).isEqualTo("a1");
	}

	// No usable account: the trial waits, it does not fail

	@Test
	void whenNoAccountOfTheDomainMaySendTheTrialWaitsForOneWithoutFailing() {
		build((builder) -> builder.canary(CanarySettings.of(PROMPT)));
		Instant openUntil = openDomain();
		this.first.set(Reply.json(429, QUOTA));
		this.second.set(Reply.json(429, Map.of("retry-after", "20"), RATE_LIMIT));
		this.h.time.advanceTo(openUntil);
		// Both answers hold their accounts; the canary then waits for the gate's end.
		await().atMost(Duration.ofSeconds(10))
			.until(() -> !this.h.events(StateChange.Kind.SCOPE_GATED).isEmpty() && this.h.time.pendingTimers() == 1);
		assertThat(last(StateChange.Kind.ACCOUNT_PARKED).subject()).isEqualTo("a1");
		assertThat(last(StateChange.Kind.SCOPE_GATED).subject()).isEqualTo("a2/gpt-4o");
		// No failed trial: the open duration did not grow, nothing reopened.
		assertThat(this.h.events(StateChange.Kind.BREAKER_OPENED)).hasSize(1);
		assertThat(this.h.resilience.isUsable("first")).isFalse();
		assertThat(this.h.resilience.isUsable("second")).isFalse();
		assertThat(chat()).isEqualTo(FROM_OTHER);
		this.second.set(Reply.ok(FROM_SECOND));
		this.h.time.advance(Duration.ofSeconds(20).minusMillis(1));
		assertThat(this.h.provider.requests("second")).isEqualTo(3);
		this.h.time.advance(Duration.ofMillis(1));
		awaitTrial();
		assertThat(status()).isEqualTo(Status.CLOSED);
		// The parked first account sent nothing more; the second sent the trial.
		assertThat(this.h.provider.requests("first")).isEqualTo(3);
		assertThat(this.h.provider.requests("second")).isEqualTo(4);
		assertThat(this.h.events(StateChange.Kind.BREAKER_OPENED)).hasSize(1);
		assertThat(chat()).isEqualTo(FROM_SECOND);
	}

	@Test
	void noCanaryGoesFromAnAccountThatIsHeldWhenTheOpenTimeEnds() {
		// Both accounts serve another domain too; its rate limits gate them for 60 s.
		AtomicReference<Reply> elsewhere = new AtomicReference<>(Reply.ok(FROM_OTHER));
		this.h.provider.script("first", (n) -> this.first.get());
		this.h.provider.script("second", (n) -> this.second.get());
		this.h.provider.script("other", (n) -> elsewhere.get());
		this.h.provider.script("other2", (n) -> elsewhere.get());
		this.h.build(
				List.of(target("first", "a1", "eu"), target("second", "a2", "eu"), target("other", "a1", "us"),
						target("other2", "a2", "ap")),
				(builder) -> builder.breaker(BREAKER).retry(ONE_ATTEMPT).canary(CanarySettings.of(PROMPT)));
		Instant openUntil = openDomain();
		elsewhere.set(Reply.json(429, Map.of("retry-after", "60"), RATE_LIMIT));
		Instant gated = this.h.time.instant();
		assertThat(this.h.chatFailure()).isInstanceOf(LlmUnavailableException.class);
		assertThat(this.h.events(StateChange.Kind.SCOPE_GATED)).extracting(StateChange::subject)
			.containsExactlyInAnyOrder("a1/gpt-4o", "a2/gpt-4o");
		this.first.set(Reply.ok(FROM_FIRST));
		this.second.set(Reply.ok(FROM_SECOND));
		// The open time ends while both accounts are gated: no canary, no trial.
		this.h.time.advanceTo(openUntil);
		assertThat(this.h.events(StateChange.Kind.BREAKER_HALF_OPEN)).isEmpty();
		assertThat(status()).isEqualTo(Status.OPEN);
		this.h.time.advanceTo(gated.plusSeconds(60).minusMillis(1));
		assertThat(this.h.provider.requests("first")).isEqualTo(2);
		assertThat(this.h.provider.requests("second")).isEqualTo(2);
		// The gates end: the canary goes from the first account.
		this.h.time.advanceTo(gated.plusSeconds(60));
		awaitTrial();
		assertThat(status()).isEqualTo(Status.CLOSED);
		assertThat(this.h.provider.requests("first")).isEqualTo(3);
		assertThat(this.h.provider.requests("second")).isEqualTo(2);
		assertThat(this.h.events(StateChange.Kind.BREAKER_OPENED)).hasSize(1);
	}

	// The canary's own request refused: a call is the trial

	static Stream<Arguments> refusals() {
		return Stream.of(Arguments.of(Reply.json(400, CONTEXT_TOO_LONG), "REQUEST"),
				Arguments.of(Reply.json(400, FILTERED), "CONTENT_FILTER"));
	}

	@ParameterizedTest(name = "{1}")
	@MethodSource("refusals")
	void aCanaryRefusedForItsOwnRequestLetsACallBeTheTrial(Reply refusal, String outcome) {
		build((builder) -> builder.canary(CanarySettings.of(PROMPT)));
		Instant openUntil = openDomain();
		this.first.set(refusal);
		this.second.set(Reply.ok(FROM_SECOND));
		this.h.time.advanceTo(openUntil);
		await().atMost(Duration.ofSeconds(10)).until(() -> !this.h.events(StateChange.Kind.CANARY_WITHDRAWN).isEmpty());
		StateChange withdrawn = last(StateChange.Kind.CANARY_WITHDRAWN);
		assertThat(withdrawn.subject()).isEqualTo(DOMAIN);
		assertThat(withdrawn.detail()).contains("target 'first'").contains("HTTP 400").contains(outcome);
		// Not a failed trial: the breaker waits half-open for a call to be its trial.
		assertThat(this.h.events(StateChange.Kind.BREAKER_OPENED)).hasSize(1);
		assertThat(status()).isEqualTo(Status.HALF_OPEN);
		this.first.set(Reply.ok(FROM_FIRST));
		assertThat(chat()).isEqualTo(FROM_FIRST);
		assertThat(status()).isEqualTo(Status.CLOSED);
		// One warning: the domain's calls are its trials from now on.
		assertThat(this.h.events(StateChange.Kind.CANARY_WITHDRAWN)).hasSize(1);
		assertThat(this.h.provider.requests("second")).isEqualTo(2);
	}

	// Real time

	/**
	 * On {@link Clock#systemUTC()}: the first account's key is revoked, the provider
	 * recovers, and the domain closes through a canary from the second account within a
	 * tolerant bound; the second account then serves.
	 */
	@Test
	void onTheSystemClockTheDomainClosesThroughItsSecondAccount() {
		Duration open = Duration.ofMillis(500);
		BreakerSettings breaker = new BreakerSettings(4, 4, 50, Duration.ofSeconds(10), 50, open, Duration.ofMinutes(1),
				1);
		List<StateChange> events = new CopyOnWriteArrayList<>();
		try (FakeProvider provider = new FakeProvider()) {
			AtomicReference<Reply> firstAnswer = new AtomicReference<>(
					Reply.json(503, FakeProviderBodies.SERVER_ERROR));
			AtomicReference<Reply> secondAnswer = new AtomicReference<>(
					Reply.json(503, FakeProviderBodies.SERVER_ERROR));
			provider.script("first", (n) -> firstAnswer.get());
			provider.script("second", (n) -> secondAnswer.get());
			LlmResilience resilience = LlmResilience.builder()
				.clock(Clock.systemUTC())
				.extractors(ErrorExtractors.standard().with(List.of(new WebClientErrorExtractor())))
				.target(new Target("first", "openai", "a1", "gpt-4o", "eu", URI.create(provider.baseUrl("first")),
						Secret.of("sk-first-0123456789")))
				.target(new Target("second", "openai", "a2", "gpt-4o", "eu", URI.create(provider.baseUrl("second")),
						Secret.of("sk-second-0123456789")))
				.chain("chat", "first", "second")
				.breaker(breaker)
				.retry(ONE_ATTEMPT)
				.canary(CanarySettings.of(PROMPT))
				.listener(events::add)
				.build();
			for (int i = 0; i < 2; i++) {
				try {
					resilience.execute("chat", this.h::webClientCall).block(Duration.ofSeconds(10));
				}
				catch (RuntimeException ex) {
					// Both targets answer 503: four failures open the domain.
				}
			}
			assertThat(resilience.state().target("first").breaker().status()).isEqualTo(Status.OPEN);
			firstAnswer.set(Reply.json(401, REVOKED));
			secondAnswer.set(Reply.ok(FROM_SECOND));
			await().atMost(Duration.ofSeconds(10))
				.until(() -> events.stream().anyMatch((change) -> change.kind() == StateChange.Kind.BREAKER_CLOSED));
			assertThat(events).filteredOn((change) -> change.kind() == StateChange.Kind.BREAKER_OPENED).hasSize(1);
			assertThat(provider.requests("second")).isEqualTo(3);
			assertThat(resilience.execute("chat", this.h::webClientCall).block(Duration.ofSeconds(10)))
				.isEqualTo(FROM_SECOND);
			resilience.close();
		}
	}

	// Helpers

	/**
	 * Two targets of one failure domain on two accounts, then a target of another domain
	 * that serves while it is open.
	 */
	private void build(Consumer<LlmResilienceBuilder> customizer) {
		this.h.provider.script("first", (n) -> this.first.get());
		this.h.provider.script("second", (n) -> this.second.get());
		this.h.provider.always("other", Reply.ok(FROM_OTHER));
		this.h.build(List.of(target("first", "a1", "eu"), target("second", "a2", "eu"), target("other", "a3", "us")),
				(builder) -> {
					builder.breaker(BREAKER).retry(ONE_ATTEMPT);
					customizer.accept(builder);
				});
	}

	private Target target(String name, String account, String region) {
		return new Target(name, "openai", account, "gpt-4o", region, URI.create(this.h.provider.baseUrl(name)),
				Secret.of("sk-" + name + "-0123456789"));
	}

	/** Two calls, each failing on both targets of the domain, open it. */
	private Instant openDomain() {
		assertThat(chat()).isEqualTo(FROM_OTHER);
		assertThat(chat()).isEqualTo(FROM_OTHER);
		assertThat(status()).isEqualTo(Status.OPEN);
		assertThat(last(StateChange.Kind.BREAKER_OPENED).subject()).isEqualTo(DOMAIN);
		return last(StateChange.Kind.BREAKER_OPENED).until();
	}

	private String chat() {
		return this.h.time.await(this.h.resilience.execute("chat", this.h::webClientCall).toFuture(),
				this.h.inFlight::get, Duration.ofSeconds(1));
	}

	private Status status() {
		return this.h.resilience.state().target("first").breaker().status();
	}

	/** The canary's real exchanges settle the trial: the breaker leaves half-open. */
	private void awaitTrial() {
		await().atMost(Duration.ofSeconds(10))
			.until(() -> !this.h.events(StateChange.Kind.BREAKER_HALF_OPEN).isEmpty() && status() != Status.HALF_OPEN);
	}

	private StateChange last(StateChange.Kind kind) {
		List<StateChange> changes = this.h.events(kind);
		assertThat(changes).isNotEmpty();
		return changes.get(changes.size() - 1);
	}

}
