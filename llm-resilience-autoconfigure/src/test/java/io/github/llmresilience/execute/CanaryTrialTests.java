package io.github.llmresilience.execute;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.Stream;

import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.canary.CanaryJudge;
import io.github.llmresilience.canary.CanaryProbe;
import io.github.llmresilience.canary.CanarySettings;
import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.retry.RetrySettings;
import io.github.llmresilience.state.TargetState.BreakerState.Status;
import io.github.llmresilience.target.Secret;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * A failure domain's canary as its breaker's half-open trial, against a real HTTP
 * provider on virtual time: the canary is sent off the call path when the open time ends,
 * calls are skipped while the breaker is open or half-open, a judged answer closes it,
 * and anything else (a degraded tier's empty or malformed 200, a failed judgement, a
 * timeout, a sender or judge that throws) is a failed trial that opens it again for the
 * grown open duration, never a wedged breaker.
 */
class CanaryTrialTests {

	private static final Duration OPEN = Duration.ofSeconds(30);

	/** Four calls, 50 %, open 30 s doubling to 4 min, one trial. */
	private static final BreakerSettings BREAKER = new BreakerSettings(4, 4, 50, Duration.ofSeconds(10), 50, OPEN,
			Duration.ofMinutes(4), 1);

	private static final RetrySettings ONE_ATTEMPT = new RetrySettings(1, Duration.ofMillis(500),
			Duration.ofSeconds(30), 0.1, Duration.ofSeconds(10), 3);

	private static final String PROMPT = "Reply with the JSON {\"ok\":true} and nothing else";

	private static final String KEY = "sk-canary-secret-0123456789";

	private final EngineHarness h = new EngineHarness();

	/** What the primary answers now; 503 until a test changes it. */
	private final AtomicReference<Reply> primary = new AtomicReference<>(
			Reply.json(503, FakeProviderBodies.SERVER_ERROR));

	@AfterEach
	void close() {
		this.h.close();
	}

	// The test: a degraded serving tier

	@ParameterizedTest
	@ValueSource(strings = { FakeProvider.DEGRADED_EMPTY, FakeProvider.DEGRADED_TRUNCATED })
	void aDegradedTierClosesTheBreakerWhenACallIsTheTrial(String degraded) {
		build((builder) -> {
		});
		Instant openUntil = openPrimary();
		this.primary.set(Reply.ok(degraded));
		this.h.time.advanceTo(openUntil.plusSeconds(1));
		chat();
		assertThat(status()).isEqualTo(Status.CLOSED);
		assertThat(this.h.provider.requests("primary")).isEqualTo(5);
	}

	@ParameterizedTest
	@ValueSource(strings = { FakeProvider.DEGRADED_EMPTY, FakeProvider.DEGRADED_TRUNCATED })
	void theCanaryKeepsTheBreakerOpenOnADegradedTier(String degraded) {
		build((builder) -> builder.canary(CanarySettings.of(PROMPT)));
		Instant openUntil = openPrimary();
		this.primary.set(Reply.ok(degraded));
		this.h.time.advanceTo(openUntil);
		awaitTrial();
		assertThat(status()).isEqualTo(Status.OPEN);
		StateChange reopened = last(StateChange.Kind.BREAKER_OPENED);
		assertThat(reopened.detail()).contains("HALF_OPEN -> OPEN")
			.contains("canary: HTTP 200 with " + (degraded.isEmpty() ? "an empty" : "a malformed") + " body")
			.contains("not a well-formed OpenAI chat completion");
		// A failed trial, as a call's: the open duration doubled.
		assertThat(reopened.until()).isEqualTo(openUntil.plus(OPEN.multipliedBy(2)));
		// One request reached the primary: the canary's. Calls go to the secondary.
		assertThat(this.h.provider.requests("primary")).isEqualTo(5);
		assertThat(chat()).contains("Hello from secondary");
		assertThat(this.h.provider.requests("primary")).isEqualTo(5);
	}

	// Passing, and what is sent

	@Test
	void aCanaryThatPassesClosesTheBreakerWithoutACall() {
		build((builder) -> builder.canary(CanarySettings.of(PROMPT)));
		Instant openUntil = openPrimary();
		this.primary.set(Reply.ok(FakeProviderBodies.OK));
		this.h.time.advanceTo(openUntil.minusMillis(1));
		assertThat(status()).isEqualTo(Status.OPEN);
		this.h.time.advanceTo(openUntil);
		awaitTrial();
		assertThat(status()).isEqualTo(Status.CLOSED);
		assertThat(last(StateChange.Kind.BREAKER_HALF_OPEN).detail()).contains("canary sent as the trial");
		assertThat(last(StateChange.Kind.BREAKER_CLOSED).detail())
			.isEqualTo("HALF_OPEN -> CLOSED (canary: answer passed (answer))");
		// The prompt in OpenAI's format, to the target's base URL, with its key.
		assertThat(this.h.provider.lastBody("primary")).contains("\"model\":\"gpt-4o\"")
			.contains("\"content\":\"Reply with the JSON {\\\"ok\\\":true} and nothing else\"");
		assertThat(this.h.provider.lastHeader("primary", "Authorization")).containsExactly("Bearer " + KEY);
		assertThat(this.h.events).noneMatch((change) -> change.detail().contains(KEY));
		assertThat(chat()).contains("Hello from primary");
	}

	@Test
	void callsAreSkippedWhileTheCanaryIsInFlightAndItsTimeoutFailsTheTrial() {
		build((builder) -> builder.canary(CanarySettings.of(PROMPT).withTimeout(Duration.ofSeconds(5))));
		Instant openUntil = openPrimary();
		this.primary.set(Reply.hang());
		this.h.time.advanceTo(openUntil);
		assertThat(status()).isEqualTo(Status.HALF_OPEN);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.h.provider.requests("primary") == 5);
		// Half-open with the canary in flight: a call is no trial, the secondary serves
		// it.
		assertThat(chat()).contains("Hello from secondary");
		assertThat(this.h.resilience.isUsable("primary")).isFalse();
		assertThat(this.h.provider.requests("primary")).isEqualTo(5);
		this.h.time.advance(Duration.ofSeconds(5));
		assertThat(status()).isEqualTo(Status.OPEN);
		assertThat(last(StateChange.Kind.BREAKER_OPENED).detail()).contains("canary: no answer within PT5S");
	}

	@Test
	void aFailedCanaryIsFollowedByTheNextOneAfterTheGrownOpenDuration() {
		build((builder) -> builder.canary(CanarySettings.of(PROMPT)));
		Instant openUntil = openPrimary();
		this.primary.set(Reply.json(503, FakeProviderBodies.SERVER_ERROR));
		this.h.time.advanceTo(openUntil);
		awaitTrial();
		assertThat(last(StateChange.Kind.BREAKER_OPENED).detail()).contains("canary: HTTP 503");
		Instant next = last(StateChange.Kind.BREAKER_OPENED).until();
		assertThat(next).isEqualTo(openUntil.plus(OPEN.multipliedBy(2)));
		this.primary.set(Reply.ok(FakeProviderBodies.OK));
		this.h.time.advanceTo(next);
		awaitTrial();
		assertThat(status()).isEqualTo(Status.CLOSED);
		assertThat(this.h.provider.requests("primary")).isEqualTo(6);
	}

	@Test
	void aCallThatFindsTheOpenTimeOverDoesNotGoThroughButTheCanaryIsTheTrial() {
		build((builder) -> builder.canary(CanarySettings.of(PROMPT)));
		Instant openUntil = openPrimary();
		this.primary.set(Reply.ok(FakeProviderBodies.OK));
		this.h.time.advanceTo(openUntil);
		assertThat(chat()).contains("Hello from secondary");
		awaitTrial();
		assertThat(status()).isEqualTo(Status.CLOSED);
		assertThat(this.h.provider.requests("primary")).isEqualTo(5);
	}

	// Judgements

	static Stream<Arguments> judgements() {
		return Stream.of(
				Arguments.of(CanarySettings.of(PROMPT).withJudge(CanarySettings.Judge.JSON), "{\"ok\": true}",
						Status.CLOSED, "answer passed (json)"),
				Arguments.of(CanarySettings.of(PROMPT).withJudge(CanarySettings.Judge.JSON),
						"Sure! Here is your JSON: {\"ok\": true}", Status.OPEN, "answer not JSON"),
				Arguments.of(CanarySettings.of(PROMPT).withJudge(CanarySettings.Judge.JSON), "{\"ok\": tr", Status.OPEN,
						"answer not JSON"),
				Arguments.of(CanarySettings.of(PROMPT).withPattern("\"ok\"\\s*:\\s*true"), "{\"ok\" : true}",
						Status.CLOSED, "answer passed (regex)"),
				Arguments.of(CanarySettings.of(PROMPT).withPattern("\"ok\"\\s*:\\s*true"), "{\"ok\": false}",
						Status.OPEN, "answer does not match the pattern"),
				Arguments.of(CanarySettings.of(PROMPT).withJudge(CanarySettings.Judge.PREDICATE), "pong", Status.CLOSED,
						"answer passed (predicate)"),
				Arguments.of(CanarySettings.of(PROMPT).withJudge(CanarySettings.Judge.PREDICATE), "ping", Status.OPEN,
						"answer rejected by the CanaryJudge"),
				Arguments.of(CanarySettings.of(PROMPT), "Hello", Status.CLOSED, "answer passed (answer)"),
				Arguments.of(CanarySettings.of(PROMPT), "  ", Status.OPEN, "answer empty"));
	}

	@ParameterizedTest
	@MethodSource("judgements")
	void theAnswersTextIsJudged(CanarySettings canary, String answer, Status expected, String reason) {
		CanaryJudge pong = (target, text) -> text.equals("pong");
		build((builder) -> builder.canary(canary).canaryJudge(pong));
		Instant openUntil = openPrimary();
		this.primary.set(Reply.ok(FakeProvider.openAiAnswer(answer)));
		this.h.time.advanceTo(openUntil);
		awaitTrial();
		assertThat(status()).isEqualTo(expected);
		StateChange.Kind kind = (expected == Status.CLOSED) ? StateChange.Kind.BREAKER_CLOSED
				: StateChange.Kind.BREAKER_OPENED;
		assertThat(last(kind).detail()).contains("canary: " + reason);
	}

	// A CanaryProbe or CanaryJudge of the application's that fails never wedges the
	// breaker

	static Stream<Arguments> brokenProbes() {
		return Stream.of(Arguments.of("throws", "the probe failed (IllegalStateException)"),
				Arguments.of("errors", "the probe failed (IllegalStateException)"),
				Arguments.of("null", "the probe failed (NullPointerException)"),
				Arguments.of("empty", "the probe gave no answer"), Arguments.of("never", "no answer within PT10S"));
	}

	@ParameterizedTest
	@MethodSource("brokenProbes")
	void aCanaryProbeThatFailsIsAFailedTrialAndTheNextTrialStillComes(String how, String reason) {
		AtomicInteger probes = new AtomicInteger();
		List<String> targets = new CopyOnWriteArrayList<>();
		CanaryProbe probe = (request) -> {
			targets.add(request.target().name());
			if (probes.incrementAndGet() > 1) {
				return Mono.just("pong");
			}
			return switch (how) {
				case "throws" -> throw new IllegalStateException("bug in the application's probe");
				case "errors" -> Mono.error(new IllegalStateException("bug in the application's probe"));
				case "null" -> null;
				case "empty" -> Mono.empty();
				default -> Mono.never();
			};
		};
		build((builder) -> builder.canaryProbe(probe).canary("secondary", null));
		Instant openUntil = openPrimary();
		this.h.time.advanceTo(openUntil);
		if (how.equals("never")) {
			// The probe is called on another thread: let it hang before time runs out.
			await().atMost(Duration.ofSeconds(10)).until(() -> probes.get() == 1);
			this.h.time.advance(CanarySettings.DEFAULT_TIMEOUT);
		}
		awaitTrial();
		assertThat(status()).isEqualTo(Status.OPEN);
		StateChange reopened = last(StateChange.Kind.BREAKER_OPENED);
		assertThat(reopened.detail()).contains("canary: " + reason);
		this.h.time.advanceTo(reopened.until());
		awaitTrial();
		assertThat(status()).isEqualTo(Status.CLOSED);
		assertThat(targets).containsExactly("primary", "primary");
		// The probe sent both: no request of the library's reached the provider.
		assertThat(this.h.provider.requests("primary")).isEqualTo(4);
	}

	@Test
	void aCanaryJudgeThatThrowsIsAFailedTrialAndTheNextTrialStillComes() {
		AtomicInteger judged = new AtomicInteger();
		CanaryJudge judge = (target, answer) -> {
			if (judged.incrementAndGet() == 1) {
				throw new IllegalStateException("bug in the application's judge");
			}
			return true;
		};
		build((builder) -> builder.canary(CanarySettings.of(PROMPT).withJudge(CanarySettings.Judge.PREDICATE))
			.canaryJudge(judge));
		Instant openUntil = openPrimary();
		this.primary.set(Reply.ok(FakeProviderBodies.OK));
		this.h.time.advanceTo(openUntil);
		awaitTrial();
		StateChange reopened = last(StateChange.Kind.BREAKER_OPENED);
		assertThat(reopened.detail()).contains("canary: the CanaryJudge failed (IllegalStateException)");
		this.h.time.advanceTo(reopened.until());
		awaitTrial();
		assertThat(status()).isEqualTo(Status.CLOSED);
		assertThat(judged).hasValue(2);
	}

	@Test
	void anOperatorWhoClosesTheBreakerDuringTheCanaryWins() {
		build((builder) -> builder.canary(CanarySettings.of(PROMPT).withTimeout(Duration.ofSeconds(5))));
		Instant openUntil = openPrimary();
		this.primary.set(Reply.hang());
		this.h.time.advanceTo(openUntil);
		assertThat(status()).isEqualTo(Status.HALF_OPEN);
		this.h.resilience.operator().close("primary");
		this.h.time.advance(Duration.ofSeconds(5));
		assertThat(status()).isEqualTo(Status.CLOSED);
		// The canary's late failure was for a trial already over: nothing reopened.
		assertThat(this.h.events(StateChange.Kind.BREAKER_OPENED)).hasSize(1);
	}

	// Set-up errors

	@Test
	void aPromptForAProviderTheSenderDoesNotSpeakFailsTheBuildNamingTheTarget() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LlmResilience.builder()
				.target(new Target("claude-on-bedrock", "bedrock", null, null, null, null, null))
				.chain("chat", "claude-on-bedrock")
				.canary(CanarySettings.of(PROMPT))
				.build())
			.withMessageContaining("Target 'claude-on-bedrock'")
			.withMessageContaining("define a CanaryProbe bean");
	}

	@Test
	void aPromptForAzureWithoutABaseUrlFailsTheBuild() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LlmResilience.builder()
				.target(new Target("azure", "azure-openai", null, "gpt-4o", null, null, Secret.of(KEY)))
				.chain("chat", "azure")
				.canary(CanarySettings.of(PROMPT))
				.build())
			.withMessageContaining("Target 'azure'")
			.withMessageContaining("needs the target's base-url")
			.withMessageNotContaining(KEY);
	}

	@Test
	void aPredicateWithoutAJudgeFailsTheBuild() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LlmResilience.builder()
				.target(Target.of("primary", "openai"))
				.chain("chat", "primary")
				.canary(CanarySettings.of(PROMPT).withJudge(CanarySettings.Judge.PREDICATE))
				.build())
			.withMessageContaining("needs a CanaryJudge");
	}

	@Test
	void aCanaryForAnUnknownTargetFailsTheBuild() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LlmResilience.builder()
				.target(Target.of("primary", "openai"))
				.chain("chat", "primary")
				.canary("primry", CanarySettings.of(PROMPT))
				.build())
			.withMessageContaining("'primry'");
	}

	// Real time

	/**
	 * On {@link Clock#systemUTC()} and the shared timer: the canary goes out when the
	 * open time ends, never before it, and closes the breaker within a tolerant bound.
	 */
	@Test
	void onTheSystemClockTheCanaryGoesOutWhenTheOpenTimeEnds() {
		Duration open = Duration.ofMillis(500);
		BreakerSettings breaker = new BreakerSettings(4, 4, 50, Duration.ofSeconds(10), 50, open, Duration.ofMinutes(1),
				1);
		List<StateChange> events = new CopyOnWriteArrayList<>();
		try (FakeProvider provider = new FakeProvider()) {
			AtomicReference<Reply> answer = new AtomicReference<>(Reply.json(503, FakeProviderBodies.SERVER_ERROR));
			provider.script("primary", (n) -> answer.get());
			LlmResilience resilience = LlmResilience.builder()
				.clock(Clock.systemUTC())
				.target(new Target("primary", "openai", null, "gpt-4o", null, URI.create(provider.baseUrl("primary")),
						Secret.of(KEY)))
				.chain("chat", "primary")
				.breaker(breaker)
				.retry(ONE_ATTEMPT)
				.canary(CanarySettings.of(PROMPT))
				.listener(events::add)
				.build();
			for (int i = 0; i < 4; i++) {
				try {
					resilience.call("chat", (attempt) -> {
						throw new java.net.ConnectException("refused");
					});
				}
				catch (RuntimeException ex) {
					// Counted as the provider's: the breaker opens after four.
				}
			}
			answer.set(Reply.ok(FakeProviderBodies.OK));
			await().atMost(Duration.ofSeconds(10))
				.until(() -> events.stream().anyMatch((change) -> change.kind() == StateChange.Kind.BREAKER_CLOSED));
			StateChange opened = events.stream()
				.filter((change) -> change.kind() == StateChange.Kind.BREAKER_OPENED)
				.findFirst()
				.orElseThrow();
			StateChange halfOpen = events.stream()
				.filter((change) -> change.kind() == StateChange.Kind.BREAKER_HALF_OPEN)
				.findFirst()
				.orElseThrow();
			assertThat(halfOpen.at()).isAfterOrEqualTo(opened.until());
			assertThat(Duration.between(opened.until(), halfOpen.at())).isLessThan(Duration.ofSeconds(3));
			assertThat(provider.requests("primary")).isOne();
			resilience.close();
		}
	}

	// Helpers

	private void build(Consumer<LlmResilienceBuilder> customizer) {
		this.h.provider.script("primary", (n) -> this.primary.get());
		this.h.provider.always("secondary", Reply.ok(FakeProviderBodies.OK_SECONDARY));
		Target primary = new Target("primary", "openai", "primary", "gpt-4o", "region-primary",
				URI.create(this.h.provider.baseUrl("primary")), Secret.of(KEY));
		this.h.build(List.of(primary, this.h.target("secondary", "secondary")), (builder) -> {
			builder.breaker(BREAKER).retry(ONE_ATTEMPT);
			customizer.accept(builder);
		});
	}

	/** Four failures open the primary's breaker (the secondary serves the calls). */
	private Instant openPrimary() {
		for (int i = 0; i < 4; i++) {
			assertThat(chat()).contains("Hello from secondary");
		}
		assertThat(status()).isEqualTo(Status.OPEN);
		return last(StateChange.Kind.BREAKER_OPENED).until();
	}

	/**
	 * One call through the chain. Virtual time moves only by short jumps while nothing is
	 * in flight: never as far as the canary's wake-up or timeout, which the test moves
	 * to.
	 */
	private String chat() {
		return this.h.time.await(this.h.resilience.execute("chat", this.h::webClientCall).toFuture(),
				this.h.inFlight::get, Duration.ofSeconds(1));
	}

	private Status status() {
		return this.h.resilience.state().target("primary").breaker().status();
	}

	/** The canary's real exchange settles the trial: the breaker leaves half-open. */
	private void awaitTrial() {
		assertThat(this.h.events(StateChange.Kind.BREAKER_HALF_OPEN)).isNotEmpty();
		await().atMost(Duration.ofSeconds(10)).until(() -> status() != Status.HALF_OPEN);
	}

	private StateChange last(StateChange.Kind kind) {
		List<StateChange> changes = this.h.events(kind);
		assertThat(changes).isNotEmpty();
		return changes.get(changes.size() - 1);
	}

}
