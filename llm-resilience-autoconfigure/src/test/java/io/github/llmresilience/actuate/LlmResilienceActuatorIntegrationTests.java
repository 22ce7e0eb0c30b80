package io.github.llmresilience.actuate;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.llmresilience.actuate.ActuatorTestApplication.EventCollector;
import io.github.llmresilience.change.RecentStateChanges;
import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.context.event.AccountLockedEvent;
import io.github.llmresilience.context.event.AccountParkedEvent;
import io.github.llmresilience.context.event.AccountReleasedEvent;
import io.github.llmresilience.context.event.BreakerTransitionEvent;
import io.github.llmresilience.context.event.ChainEditedEvent;
import io.github.llmresilience.context.event.LlmResilienceEvent;
import io.github.llmresilience.context.event.ScopeGatedEvent;
import io.github.llmresilience.execute.LlmRejectedException;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.execute.LlmUnavailableException;
import io.github.llmresilience.state.ChainState;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import io.github.llmresilience.test.ManualTime;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The health contributor, the endpoint and the meters in a running application: real HTTP
 * to the actuator, real HTTP from the executor to a fake provider, virtual time for every
 * expiry. One application serves every test; each test starts from a clean state.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		classes = { ActuatorTestApplication.class, VirtualTime.class },
		properties = { ActuatorTestApplication.CHAT_CHAIN, "llm.resilience.targets.primary.account=acct-a",
				"llm.resilience.targets.primary.region=us",
				"llm.resilience.targets.primary.api-key=" + LlmResilienceActuatorIntegrationTests.KEY,
				"llm.resilience.targets.secondary.account=acct-b", "llm.resilience.targets.secondary.region=eu",
				"llm.resilience.targets.secondary.api-key=" + LlmResilienceActuatorIntegrationTests.KEY,
				"llm.resilience.retry.max-attempts=1", "llm.resilience.breaker.minimum-calls=2",
				"llm.resilience.breaker.sliding-window-size=2",
				"management.endpoints.web.exposure.include=health,llmresilience",
				// The writes are tested here: read-only is the default (see
				// LlmResilienceEndpointAccessIntegrationTests).
				"management.endpoint.llmresilience.access=unrestricted",
				"management.endpoint.health.show-details=always",
				// Spring MVC is on the test class path too (for the servlet tests).
				"spring.main.web-application-type=reactive" })
@AutoConfigureWebTestClient
@ExtendWith(OutputCaptureExtension.class)
@Timeout(value = ActuatorClients.HANG_MINUTES, unit = TimeUnit.MINUTES)
class LlmResilienceActuatorIntegrationTests {

	/** A key recognizable anywhere it might leak to, in full or in part. */
	static final String KEY = "sk-test-LEAKCHECK-7f3a9c2e5b1d";

	private static final String LEAK_MARKER = "LEAKCHECK";

	private static final String OK_PRIMARY = "{\"choices\":[{\"message\":{\"content\":\"from primary\"},"
			+ "\"finish_reason\":\"stop\"}]}";

	private static final String OK_SECONDARY = "{\"choices\":[{\"message\":{\"content\":\"from secondary\"},"
			+ "\"finish_reason\":\"stop\"}]}";

	private static final String QUOTA = "{\"error\":{\"message\":\"You exceeded your current quota, please check "
			+ "your plan and billing details.\",\"type\":\"insufficient_quota\",\"param\":null,"
			+ "\"code\":\"insufficient_quota\"}}";

	/** A 401 that echoes the key it was sent, as some gateways do. */
	private static final String INVALID_KEY_ECHOED = "{\"error\":{\"message\":\"Incorrect API key provided: " + KEY
			+ ". You can find your API key at https://platform.openai.com/account/api-keys.\","
			+ "\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"invalid_api_key\"}}";

	private static final String RATE_LIMITED = "{\"error\":{\"message\":\"Rate limit reached for gpt-4o on tokens per "
			+ "min (TPM).\",\"type\":\"tokens\",\"param\":null,\"code\":\"rate_limit_exceeded\"}}";

	private static final String TEAPOT = "{\"error\":{\"message\":\"I am a teapot\",\"type\":\"teapot_error\"}}";

	private static final FakeProvider provider = new FakeProvider();

	@Autowired
	private WebTestClient client;

	@Autowired
	private LlmResilience resilience;

	@Autowired
	private ManualTime time;

	@Autowired
	private MeterRegistry meters;

	@Autowired
	private RecentStateChanges recentChanges;

	@Autowired
	private EventCollector events;

	@DynamicPropertySource
	static void providerUrls(DynamicPropertyRegistry registry) {
		ActuatorClients.fakeProviderUrls(registry, provider);
	}

	@AfterAll
	static void stopProvider() {
		provider.close();
	}

	@BeforeEach
	void cleanState() {
		provider.resetCounts();
		provider.always("primary", Reply.ok(OK_PRIMARY));
		provider.always("secondary", Reply.ok(OK_SECONDARY));
		// Every gate, park and lock an earlier test left behind has expired.
		this.time.advance(Duration.ofHours(6));
		ChainState chat = this.resilience.state().chain("chat");
		if (chat.edited()) {
			this.resilience.operator().replaceChain("chat", chat.configuredTargets());
		}
		this.resilience.state().targets().keySet().forEach(this.resilience.operator()::reset);
		this.events.clear();
	}

	// Health -------------------------------------------------------------------------

	@Test
	void healthShowsEveryChainAndTargetAndIsUpWhileEveryChainCanServe() {
		this.client.get()
			.uri("/actuator/health")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.status")
			.isEqualTo("UP")
			.jsonPath("$.components.llmResilience.status")
			.isEqualTo("UP")
			.jsonPath("$.components.llmResilience.details.chains.chat.usable")
			.isEqualTo(true)
			.jsonPath("$.components.llmResilience.details.chains.chat.targets")
			.isEqualTo(List.of("primary", "secondary"))
			.jsonPath("$.components.llmResilience.details.targets.primary.usable")
			.isEqualTo(true)
			.jsonPath("$.components.llmResilience.details.targets.primary.breaker.domain")
			.isEqualTo("openai/gpt-4o/us")
			.jsonPath("$.components.llmResilience.details.targets.primary.breaker.state")
			.isEqualTo("CLOSED")
			.jsonPath("$.components.llmResilience.details.targets.primary.throttle.scope")
			.isEqualTo("acct-a/gpt-4o")
			.jsonPath("$.components.llmResilience.details.targets.primary.account.name")
			.isEqualTo("acct-a")
			.jsonPath("$.components.llmResilience.details.targets.secondary.breaker.domain")
			.isEqualTo("openai/gpt-4o-mini/eu");
	}

	@Test
	void whenAChainCannotServeHealthIsDegradedWithHttp200AndTheApplicationStaysUp() {
		post("/targets/primary", Map.of("action", "force-open")).expectStatus().isOk();
		post("/targets/secondary", Map.of("action", "force-open")).expectStatus().isOk();

		this.client.get()
			.uri("/actuator/health")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.status")
			.isEqualTo("UP")
			.jsonPath("$.components.llmResilience.status")
			.isEqualTo("DEGRADED")
			.jsonPath("$.components.llmResilience.details.chains.chat.usable")
			.isEqualTo(false)
			.jsonPath("$.components.llmResilience.details.targets.primary.breaker.state")
			.isEqualTo("FORCED_OPEN");
		this.client.get()
			.uri("/actuator/health/llmResilience")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.status")
			.isEqualTo("DEGRADED");
	}

	@Test
	void aBreakerOpenedByFailuresShowsUntilWhenAndServesAgainWhenTheTimeComes(CapturedOutput output) {
		provider.always("primary", Reply.json(503, FakeProvider.OPENAI_503));
		int logLinesBefore = occurrences(output.getOut(), "llm-resilience breaker-opened openai/gpt-4o/us");
		double countedBefore = transitions("breaker-opened", "openai/gpt-4o/us");

		assertThat(chat()).contains("from secondary");
		assertThat(chat()).contains("from secondary");

		String openUntil = this.time.instant().plusSeconds(30).toString();
		this.client.get()
			.uri("/actuator/llmresilience/primary")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.usable")
			.isEqualTo(false)
			.jsonPath("$.availableAt")
			.isEqualTo(openUntil)
			.jsonPath("$.breaker.state")
			.isEqualTo("OPEN")
			.jsonPath("$.breaker.failureRate")
			.isEqualTo(100.0)
			.jsonPath("$.breaker.bufferedCalls")
			.isEqualTo(2)
			.jsonPath("$.breaker.availableAt")
			.isEqualTo(openUntil);
		this.client.get()
			.uri("/actuator/health")
			.exchange()
			.expectBody()
			.jsonPath("$.components.llmResilience.status")
			.isEqualTo("UP")
			.jsonPath("$.components.llmResilience.details.targets.primary.usable")
			.isEqualTo(false);

		// The change was told exactly once everywhere: log, counter, recent list, event.
		assertThat(occurrences(output.getOut(), "llm-resilience breaker-opened openai/gpt-4o/us") - logLinesBefore)
			.isOne();
		assertThat(transitions("breaker-opened", "openai/gpt-4o/us") - countedBefore).isOne();
		assertThat(this.recentChanges.list().get(0).kind()).isEqualTo(StateChange.Kind.BREAKER_OPENED);
		assertThat(this.events.all()).singleElement()
			.isInstanceOf(BreakerTransitionEvent.class)
			.satisfies((event) -> assertThat(event.getUntil()).hasToString(openUntil));
		assertThat(this.meters.get("llm.resilience.calls")
			.tags("target", "primary", "outcome", "availability")
			.timer()
			.count()).isGreaterThanOrEqualTo(2);
		assertThat(this.meters.get("llm.resilience.fallbacks")
			.tags("chain", "chat", "target", "secondary")
			.counter()
			.count()).isGreaterThanOrEqualTo(2);

		this.time.advance(Duration.ofSeconds(31));
		this.client.get()
			.uri("/actuator/llmresilience/primary")
			.exchange()
			.expectBody()
			.jsonPath("$.usable")
			.isEqualTo(true);
	}

	@Test
	void aRateLimitGatesTheScopeUntilTheVendorsHintAndIsToldEverywhereOnce(CapturedOutput output) {
		provider.always("primary", Reply.json(429, Map.of("retry-after", "20"), RATE_LIMITED));
		int logLinesBefore = occurrences(output.getOut(), "llm-resilience scope-gated acct-a/gpt-4o");
		double countedBefore = transitions("scope-gated", "acct-a/gpt-4o");

		assertThat(chat()).contains("from secondary");

		String gatedUntil = this.time.instant().plusSeconds(20).toString();
		this.client.get()
			.uri("/actuator/llmresilience/primary")
			.exchange()
			.expectBody()
			.jsonPath("$.usable")
			.isEqualTo(false)
			.jsonPath("$.availableAt")
			.isEqualTo(gatedUntil)
			.jsonPath("$.throttle.scope")
			.isEqualTo("acct-a/gpt-4o")
			.jsonPath("$.throttle.throttledUntil")
			.isEqualTo(gatedUntil);
		assertThat(this.meters.get("llm.resilience.gated.scopes").gauge().value()).isEqualTo(1);
		assertThat(occurrences(output.getOut(), "llm-resilience scope-gated acct-a/gpt-4o") - logLinesBefore).isOne();
		assertThat(transitions("scope-gated", "acct-a/gpt-4o") - countedBefore).isOne();
		assertThat(this.recentChanges.list().get(0).kind()).isEqualTo(StateChange.Kind.SCOPE_GATED);
		assertThat(this.events.all()).singleElement().isInstanceOf(ScopeGatedEvent.class);

		this.time.advance(Duration.ofSeconds(21));
		assertThat(this.meters.get("llm.resilience.gated.scopes").gauge().value()).isZero();
		provider.always("primary", Reply.ok(OK_PRIMARY));
		assertThat(chat()).contains("from primary");
	}

	// Endpoint reads -------------------------------------------------------------------

	@Test
	void theEndpointListsTargetsChainsRecentEventsAndUnclassifiedErrors() {
		provider.always("primary", Reply.json(418, TEAPOT));
		assertThat(catchThrowable(this::chat)).isInstanceOf(LlmRejectedException.class);

		this.client.get()
			.uri("/actuator/llmresilience")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.targets.primary.provider")
			.isEqualTo("openai")
			.jsonPath("$.targets.primary.model")
			.isEqualTo("gpt-4o")
			.jsonPath("$.targets.primary.region")
			.isEqualTo("us")
			.jsonPath("$.targets.primary.breaker.state")
			.isEqualTo("CLOSED")
			.jsonPath("$.targets.primary.retryBudget.calls")
			.isNumber()
			.jsonPath("$.targets.primary.timeouts.attempt.configured")
			.isEqualTo(30_000)
			.jsonPath("$.targets.primary.timeouts.attempt.measured")
			.isEqualTo(false)
			.jsonPath("$.targets.primary.timeouts.firstToken.configured")
			.isEqualTo(5_000)
			.jsonPath("$.targets.primary.timeouts.attempt.samples")
			.isNumber()
			.jsonPath("$.targets.secondary.account.name")
			.isEqualTo("acct-b")
			.jsonPath("$.chains.chat.targets")
			.isEqualTo(List.of("primary", "secondary"))
			.jsonPath("$.chains.chat.configuredTargets")
			.isEqualTo(List.of("primary", "secondary"))
			.jsonPath("$.chains.chat.edited")
			.isEqualTo(false)
			.jsonPath("$.events[0].kind")
			.isEqualTo("breaker-reset")
			.jsonPath("$.events.length()")
			.isEqualTo(Math.min(200, this.recentChanges.list().size()))
			.jsonPath("$.unclassified[?(@.type == 'teapot_error')].provider")
			.isEqualTo(List.of("openai"))
			.jsonPath("$.unclassified[?(@.type == 'teapot_error')].status")
			.isEqualTo(List.of(418))
			.jsonPath("$.unclassified[?(@.type == 'teapot_error')].count")
			.isEqualTo(List.of(1));
		assertThat(this.meters.get("llm.resilience.classification.unclassified")
			.tags("provider", "openai", "status", "418", "type", "teapot_error")
			.counter()
			.count()).isEqualTo(1);
	}

	@Test
	void anUnknownTargetIsNotFound() {
		this.client.get().uri("/actuator/llmresilience/nope").exchange().expectStatus().isNotFound();
	}

	// Endpoint writes ------------------------------------------------------------------

	@Test
	void targetWritesForceOpenCloseAndResetTheBreakerEachAsAnEvent() {
		post("/targets/primary", Map.of("action", "force-open")).expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.breaker.state")
			.isEqualTo("FORCED_OPEN")
			.jsonPath("$.usable")
			.isEqualTo(false);
		assertThat(chat()).contains("from secondary");
		assertThat(provider.requests("primary")).isZero();

		post("/targets/primary", Map.of("action", "close")).expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.breaker.state")
			.isEqualTo("CLOSED");
		post("/targets/primary", Map.of("action", "reset")).expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.breaker.state")
			.isEqualTo("CLOSED");
		assertThat(chat()).contains("from primary");

		assertThat(this.events.all()).extracting(LlmResilienceEvent::getKind)
			.containsExactly(StateChange.Kind.BREAKER_FORCED_OPEN, StateChange.Kind.BREAKER_CLOSED,
					StateChange.Kind.BREAKER_RESET);
		assertThat(this.recentChanges.list().subList(0, 3)).extracting(StateChange::kind)
			.containsExactly(StateChange.Kind.BREAKER_RESET, StateChange.Kind.BREAKER_CLOSED,
					StateChange.Kind.BREAKER_FORCED_OPEN);
	}

	@Test
	void accountWritesUnparkAndUnlockEachAsAnEvent() {
		provider.always("primary", Reply.json(429, QUOTA));
		assertThat(chat()).contains("from secondary");
		String parkedUntil = this.time.instant().plus(Duration.ofHours(1)).toString();
		this.client.get()
			.uri("/actuator/llmresilience/primary")
			.exchange()
			.expectBody()
			.jsonPath("$.usable")
			.isEqualTo(false)
			.jsonPath("$.account.parkedUntil")
			.isEqualTo(parkedUntil)
			.jsonPath("$.account.parkReason")
			.isEqualTo("quota (insufficient_quota)");
		assertThat(this.meters.get("llm.resilience.parked.accounts").gauge().value()).isEqualTo(1);

		post("/accounts/acct-a", Map.of("action", "unpark")).expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.name")
			.isEqualTo("acct-a")
			.jsonPath("$.parkedUntil")
			.doesNotExist();
		provider.always("primary", Reply.json(401, INVALID_KEY_ECHOED));
		chat();
		chat();
		this.client.get()
			.uri("/actuator/llmresilience/primary")
			.exchange()
			.expectBody()
			.jsonPath("$.account.lockedUntil")
			.isNotEmpty()
			.jsonPath("$.account.lockReason")
			.value((String reason) -> assertThat(reason)
				.startsWith("credential rejected 2 times in a row (invalid_api_key)"));

		post("/accounts/acct-a", Map.of("action", "unlock")).expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.lockedUntil")
			.doesNotExist();
		provider.always("primary", Reply.ok(OK_PRIMARY));
		assertThat(chat()).contains("from primary");

		assertThat(this.events.all()).extracting(LlmResilienceEvent::getClass)
			.containsExactly(AccountParkedEvent.class, AccountReleasedEvent.class, AccountLockedEvent.class,
					AccountReleasedEvent.class);
		assertThat(this.events.all()).extracting(LlmResilienceEvent::getKind)
			.containsExactly(StateChange.Kind.ACCOUNT_PARKED, StateChange.Kind.ACCOUNT_UNPARKED,
					StateChange.Kind.ACCOUNT_LOCKED, StateChange.Kind.ACCOUNT_UNLOCKED);
	}

	@Test
	void aChainEditedThroughTheEndpointChangesWhichTargetTheNextCallUses() {
		assertThat(chat()).contains("from primary");
		double countedBefore = transitions("chain-edited", "chat");

		post("/chains/chat", Map.of("targets", "secondary,primary")).expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.targets")
			.isEqualTo(List.of("secondary", "primary"))
			.jsonPath("$.configuredTargets")
			.isEqualTo(List.of("primary", "secondary"))
			.jsonPath("$.edited")
			.isEqualTo(true);

		assertThat(chat()).contains("from secondary");
		assertThat(provider.requests("primary")).isOne();
		assertThat(provider.requests("secondary")).isOne();
		assertThat(this.events.all()).singleElement()
			.isInstanceOf(ChainEditedEvent.class)
			.satisfies(
					(event) -> assertThat(event.getDetail()).isEqualTo("[primary, secondary] -> [secondary, primary]"));
		assertThat(transitions("chain-edited", "chat") - countedBefore).isOne();
		this.client.get()
			.uri("/actuator/llmresilience")
			.exchange()
			.expectBody()
			.jsonPath("$.chains.chat.edited")
			.isEqualTo(true)
			.jsonPath("$.events[0].kind")
			.isEqualTo("chain-edited")
			.jsonPath("$.events[0].subject")
			.isEqualTo("chat");
	}

	@Test
	void aChainEditIgnoresSpacesAroundTheNamesAndTakesBootsOwnMediaType() {
		this.client.post()
			.uri("/actuator/llmresilience/chains/chat")
			.contentType(MediaType.parseMediaType("application/vnd.spring-boot.actuator.v3+json"))
			.bodyValue("{\"targets\": \" secondary , primary \"}")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.targets")
			.isEqualTo(List.of("secondary", "primary"))
			.jsonPath("$.edited")
			.isEqualTo(true);

		assertThat(chat()).contains("from secondary");
		assertThat(this.resilience.state().chain("chat").targets()).containsExactly("secondary", "primary");
		assertThat(this.events.all()).singleElement().isInstanceOf(ChainEditedEvent.class);
	}

	@Test
	void aJsonArrayOfTargetsIsBootsOwn400AndChangesNothing() {
		int changesBefore = this.recentChanges.list().size();
		StateChange newestBefore = this.recentChanges.list().get(0);

		// Boot reads the body as string values and refuses the array before the operation
		// runs: its own error body, with no message unless the application asks for one.
		post("/chains/chat", Map.of("targets", List.of("secondary", "primary"))).expectStatus()
			.isBadRequest()
			.expectBody()
			.jsonPath("$.status")
			.isEqualTo(400)
			.jsonPath("$.error")
			.isEqualTo("Bad Request")
			.jsonPath("$.path")
			.isEqualTo("/actuator/llmresilience/chains/chat")
			.jsonPath("$.message")
			.doesNotExist();

		assertThat(this.resilience.state().chain("chat").targets()).containsExactly("primary", "secondary");
		assertThat(this.recentChanges.list()).hasSize(changesBefore);
		assertThat(this.recentChanges.list().get(0)).isSameAs(newestBefore);
		assertThat(this.events.all()).isEmpty();
		assertThat(chat()).contains("from primary");
		assertThat(provider.requests("secondary")).isZero();
	}

	@Test
	void aBadWriteIsA400ThatSaysWhatIsWrongAndChangesNothing() {
		int changesBefore = this.recentChanges.list().size();
		StateChange newestBefore = this.recentChanges.list().get(0);

		badRequest("/chains/chat", Map.of("targets", "primary,nope"),
				"Chain 'chat' names unknown target 'nope'; known targets: [primary, secondary]");
		badRequest("/chains/chat", Map.of("targets", ""), "Chain 'chat' needs at least one target");
		badRequest("/chains/chat", Map.of("targets", "primary,,secondary"),
				"\"targets\" has an empty name: 'primary,,secondary'");
		badRequest("/chains/chat", Map.of("targets", "primary,primary"), "Chain 'chat' names target 'primary' twice");
		badRequest("/chains/chat", Map.of(), "Missing \"targets\": the chain's new target names in order, "
				+ "comma-separated, such as \"secondary,primary\"");
		badRequest("/chains/nope", Map.of("targets", "primary"), "No chain named 'nope'; known chains: [chat]");
		badRequest("/targets/nope", Map.of("action", "close"),
				"No target named 'nope'; known targets: [primary, secondary]");
		badRequest("/targets/primary", Map.of("action", "explode"),
				"Unknown action 'explode'; allowed: force-open, close, reset");
		badRequest("/targets/primary", Map.of(), "Missing \"action\"; allowed: force-open, close, reset");
		badRequest("/accounts/primary", Map.of("action", "unpark"),
				"No account named 'primary'; known accounts: [acct-a, acct-b]");
		badRequest("/accounts/acct-a", Map.of("action", "close"), "Unknown action 'close'; allowed: unpark, unlock");
		badRequest("/widgets/primary", Map.of("action", "close"),
				"Unknown kind 'widgets': POST to targets/{name}, accounts/{name}, chains/{name} or "
						+ "classification/rules");

		// Boot refuses an array for any member, and a body that is no JSON, before the
		// operation runs.
		post("/targets/primary", Map.of("action", List.of("close"))).expectStatus().isBadRequest();
		this.client.post()
			.uri("/actuator/llmresilience/chains/chat")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{\"targets\": \"secondary,")
			.exchange()
			.expectStatus()
			.isBadRequest();

		assertThat(this.resilience.state().chain("chat").targets()).containsExactly("primary", "secondary");
		assertThat(this.resilience.state().target("primary").breaker().status().name()).isEqualTo("CLOSED");
		assertThat(this.recentChanges.list()).hasSize(changesBefore);
		assertThat(this.recentChanges.list().get(0)).isSameAs(newestBefore);
		assertThat(this.events.all()).isEmpty();
	}

	// Security -------------------------------------------------------------------------

	@Test
	void noKeyAppearsInHealthEndpointMetricsEventsLogsOrExceptionMessages(CapturedOutput output) {
		provider.always("primary", Reply.json(401, INVALID_KEY_ECHOED));
		provider.always("secondary", Reply.json(503, FakeProvider.OPENAI_503));
		List<Throwable> failures = new ArrayList<>();
		failures.add(catchThrowable(this::chat));
		failures.add(catchThrowable(this::chat));
		assertThat(failures).allSatisfy((failure) -> assertThat(failure).isInstanceOf(LlmUnavailableException.class));
		// The key was really used, and the provider really echoed it back.
		assertThat(provider.lastHeader("primary", "Authorization")).containsExactly("Bearer " + KEY);
		assertThat(INVALID_KEY_ECHOED).contains(KEY);

		List<String> places = new ArrayList<>();
		places.add(body("/actuator/health"));
		places.add(body("/actuator/health/llmResilience"));
		places.add(body("/actuator/llmresilience"));
		places.add(body("/actuator/llmresilience/primary"));
		for (Meter meter : this.meters.getMeters()) {
			places.add(meter.getId().toString());
		}
		this.recentChanges.list().forEach((change) -> places.add(change.toString()));
		for (LlmResilienceEvent event : this.events.all()) {
			places.add(event.toString());
			places.add(event.getChange().toString());
		}
		for (Throwable failure : failures) {
			for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
				places.add(cause.toString());
				places.add(String.valueOf(cause.getMessage()));
			}
		}
		places.add(output.getAll());

		// The places hold what they should: the lock, its reason, its log line.
		assertThat(this.events.all()).hasAtLeastOneElementOfType(AccountLockedEvent.class);
		assertThat(output.getOut()).contains("llm-resilience account-locked acct-a");
		assertThat(places.get(2)).contains("invalid_api_key");
		assertThat(places).allSatisfy((text) -> assertThat(text).doesNotContain(LEAK_MARKER));
	}

	// ---------------------------------------------------------------------------------

	private String chat() {
		return ActuatorClients.chat(this.resilience);
	}

	private WebTestClient.ResponseSpec post(String path, Map<String, ?> body) {
		return this.client.post()
			.uri("/actuator/llmresilience" + path)
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue(body)
			.exchange();
	}

	private void badRequest(String path, Map<String, ?> body, String message) {
		post(path, body).expectStatus()
			.isBadRequest()
			.expectBody()
			.jsonPath("$.status")
			.isEqualTo(400)
			.jsonPath("$.error")
			.isEqualTo("Bad Request")
			.jsonPath("$.message")
			.isEqualTo(message);
	}

	private String body(String path) {
		byte[] body = this.client.get().uri(path).exchange().expectBody().returnResult().getResponseBody();
		assertThat(body).isNotEmpty();
		return new String(body, StandardCharsets.UTF_8);
	}

	private double transitions(String kind, String subject) {
		var counter = this.meters.find("llm.resilience.state.transitions")
			.tags("kind", kind, "subject", subject)
			.counter();
		return (counter != null) ? counter.count() : 0;
	}

	private static int occurrences(String text, String part) {
		int count = 0;
		for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
			count++;
		}
		return count;
	}

}
