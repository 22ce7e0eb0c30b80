package io.github.llmresilience.execute;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.llmresilience.observation.LlmObservations;
import io.github.llmresilience.test.FakeProvider.Reply;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each call through a chain is one {@code llm.resilience.call} observation with one
 * {@code llm.resilience.attempt} child per request sent, and an event for every target
 * passed over: a trace shows why the call went where it went. Real engine, real HTTP (the
 * fake provider), Micrometer's test registry.
 */
class CallObservationTests {

	private final EngineHarness h = new EngineHarness();

	private final TestObservationRegistry registry = TestObservationRegistry.create();

	/** Every observation, in the order it started. */
	private final List<Observation.Context> started = new CopyOnWriteArrayList<>();

	/** The events of each observation, as its handlers are told them. */
	private final Map<Observation.Context, List<Observation.Event>> events = new ConcurrentHashMap<>();

	CallObservationTests() {
		this.registry.observationConfig().observationHandler(new ObservationHandler<>() {
			@Override
			public void onStart(Observation.Context context) {
				CallObservationTests.this.started.add(context);
			}

			@Override
			public void onEvent(Observation.Event event, Observation.Context context) {
				CallObservationTests.this.events.computeIfAbsent(context, (key) -> new CopyOnWriteArrayList<>())
					.add(event);
			}

			@Override
			public boolean supportsContext(Observation.Context context) {
				return true;
			}
		});
	}

	private List<Observation.Event> eventsOf(Observation.Context context) {
		return this.events.getOrDefault(context, List.of());
	}

	@AfterEach
	void close() {
		this.h.close();
	}

	private void build(String... targets) {
		this.h.build((builder) -> builder.tracing(new LlmObservations(this.registry)), targets);
	}

	/** The observations of that name, in the order they started. */
	private List<Observation.Context> named(String name) {
		return this.started.stream().filter((context) -> name.equals(context.getName())).toList();
	}

	private static String low(Observation.Context context, String key) {
		return context.getLowCardinalityKeyValue(key).getValue();
	}

	@Test
	void aFailoverIsOneCallWithAnAttemptPerRequestEachTheCallsChild() {
		this.h.provider.always("primary", Reply.json(503, FakeProviderBodies.SERVER_ERROR));
		this.h.provider.always("secondary", Reply.ok(FakeProviderBodies.OK_SECONDARY));
		build("primary", "secondary");

		assertThat(this.h.chat()).isEqualTo(FakeProviderBodies.OK_SECONDARY);

		TestObservationRegistryAssert.assertThat(this.registry).doesNotHaveAnyRemainingCurrentObservation();
		List<Observation.Context> calls = named(LlmObservations.CALL);
		assertThat(calls).hasSize(1);
		Observation.Context call = calls.get(0);
		assertThat(low(call, LlmObservations.CHAIN)).isEqualTo("chat");
		assertThat(low(call, LlmObservations.OUTCOME)).isEqualTo("served");
		assertThat(low(call, LlmObservations.SERVED_BY)).isEqualTo("secondary");
		assertThat(low(call, LlmObservations.FAIL_FAST)).isEqualTo("none");
		List<Observation.Context> attempts = named(LlmObservations.ATTEMPT);
		int requests = this.h.provider.requests("primary") + this.h.provider.requests("secondary");
		assertThat(call.getHighCardinalityKeyValue(LlmObservations.ATTEMPTS).getValue())
			.isEqualTo(Integer.toString(requests));
		assertThat(attempts).hasSize(requests);
		assertThat(attempts).allSatisfy((attempt) -> {
			assertThat(attempt.getParentObservation()).isNotNull();
			assertThat(attempt.getParentObservation().getContextView()).isSameAs(call);
			assertThat(low(attempt, LlmObservations.GEN_AI_PROVIDER)).isEqualTo("openai");
			assertThat(low(attempt, LlmObservations.GEN_AI_MODEL)).isEqualTo("gpt-4o");
		});
		Observation.Context first = attempts.get(0);
		assertThat(low(first, LlmObservations.TARGET)).isEqualTo("primary");
		assertThat(low(first, LlmObservations.REGION)).isEqualTo("region-primary");
		assertThat(low(first, LlmObservations.VERDICT)).isEqualTo("availability");
		assertThat(low(first, LlmObservations.RETRY)).isEqualTo("false");
		Observation.Context last = attempts.get(attempts.size() - 1);
		assertThat(low(last, LlmObservations.TARGET)).isEqualTo("secondary");
		assertThat(low(last, LlmObservations.VERDICT)).isEqualTo("success");
		if (this.h.provider.requests("primary") > 1) {
			assertThat(low(attempts.get(1), LlmObservations.RETRY)).isEqualTo("true");
			assertThat(eventsOf(call)).extracting(Observation.Event::getName)
				.contains(LlmObservations.RETRY_EVENT + "attempted");
		}
	}

	@Test
	void aHedgedCallIsOneCallServedByTheHedgeWhoseAttemptsAreNotTheTracesOwn() throws Exception {
		this.h.provider.always("primary", Reply.hang());
		this.h.provider.always("secondary", Reply.ok(FakeProviderBodies.OK_SECONDARY));
		this.h.build((builder) -> builder.tracing(new LlmObservations(this.registry))
			.hedging(io.github.llmresilience.hedge.HedgingSettings.defaults()
				.withEnabled(true)
				.withCalls(true)
				.withDelay(java.time.Duration.ofSeconds(1))), "primary", "secondary");

		CompletableFuture<String> answer = this.h.resilience.execute("chat", this.h::webClientCall).toFuture();
		org.awaitility.Awaitility.await().until(() -> this.h.provider.requests("primary") == 1);
		this.h.time.advance(java.time.Duration.ofSeconds(1));
		assertThat(answer.get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(FakeProviderBodies.OK_SECONDARY);

		Observation.Context call = named(LlmObservations.CALL).get(0);
		assertThat(named(LlmObservations.CALL)).hasSize(1);
		assertThat(low(call, LlmObservations.OUTCOME)).isEqualTo("served");
		assertThat(low(call, LlmObservations.SERVED_BY)).isEqualTo("secondary");
		// The trace follows the call's own walk: its attempt, cancelled, has no verdict.
		assertThat(named(LlmObservations.ATTEMPT)).singleElement().satisfies((attempt) -> {
			assertThat(low(attempt, LlmObservations.TARGET)).isEqualTo("primary");
			assertThat(low(attempt, LlmObservations.VERDICT)).isEqualTo("none");
		});
	}

	@Test
	void aTargetPassedOverIsAnEventOnTheCallAndItsReasonTheCallsFailFastKey() {
		this.h.provider.always("secondary", Reply.ok(FakeProviderBodies.OK_SECONDARY));
		build("primary", "secondary");
		this.h.resilience.operator().forceOpen("primary");

		assertThat(this.h.chat()).isEqualTo(FakeProviderBodies.OK_SECONDARY);

		Observation.Context call = named(LlmObservations.CALL).get(0);
		assertThat(eventsOf(call)).extracting(Observation.Event::getName, Observation.Event::getContextualName)
			.containsExactly(org.assertj.core.groups.Tuple.tuple(LlmObservations.SKIPPED_EVENT + "breaker_forced_open",
					"skipped primary: breaker_forced_open"));
		assertThat(low(call, LlmObservations.FAIL_FAST)).isEqualTo("breaker_forced_open");
		assertThat(named(LlmObservations.ATTEMPT)).singleElement()
			.satisfies((attempt) -> assertThat(low(attempt, LlmObservations.TARGET)).isEqualTo("secondary"));
	}

	@Test
	void aRejectedRequestIsOneAttemptAndTheCallSaysRejected() {
		this.h.provider.always("primary", Reply.json(400, EngineHarness.fixture("openai-400-context-length-exceeded")));
		build("primary", "secondary");

		assertThat(this.h.chatFailure()).isInstanceOf(LlmRejectedException.class);

		Observation.Context call = named(LlmObservations.CALL).get(0);
		assertThat(low(call, LlmObservations.OUTCOME)).isEqualTo("rejected");
		assertThat(low(call, LlmObservations.SERVED_BY)).isEqualTo("none");
		assertThat(call.getError()).isInstanceOf(LlmRejectedException.class);
		assertThat(named(LlmObservations.ATTEMPT)).singleElement()
			.satisfies((attempt) -> assertThat(low(attempt, LlmObservations.VERDICT)).isEqualTo("request"));
		assertThat(this.h.provider.requests("secondary")).isZero();
	}

	@Test
	void anUnavailableChainSaysUnavailableWithTheLastSkipsReason() {
		build("primary", "secondary");
		this.h.resilience.operator().forceOpen("primary");
		this.h.resilience.operator().forceOpen("secondary");

		assertThat(this.h.chatFailure()).isInstanceOf(LlmUnavailableException.class);

		Observation.Context call = named(LlmObservations.CALL).get(0);
		assertThat(low(call, LlmObservations.OUTCOME)).isEqualTo("unavailable");
		assertThat(low(call, LlmObservations.FAIL_FAST)).isEqualTo("breaker_forced_open");
		assertThat(call.getHighCardinalityKeyValue(LlmObservations.ATTEMPTS).getValue()).isEqualTo("0");
		assertThat(eventsOf(call)).hasSize(2);
		assertThat(named(LlmObservations.ATTEMPT)).isEmpty();
	}

	@Test
	void aBlockingCallFunctionRunsWithItsAttemptCurrentSoThatItsClientsObservationIsTheAttemptsChild() {
		this.h.provider.always("primary", Reply.json(503, FakeProviderBodies.SERVER_ERROR));
		this.h.provider.always("secondary", Reply.ok(FakeProviderBodies.OK_SECONDARY));
		build("primary", "secondary");
		List<String> current = new CopyOnWriteArrayList<>();

		String answer = this.h.time
			.await(CompletableFuture.supplyAsync(() -> this.h.resilience.call("chat", (attempt) -> {
				Observation observation = this.registry.getCurrentObservation();
				current.add(attempt.target().name() + " " + ((observation != null)
						? low((Observation.Context) observation.getContextView(), LlmObservations.TARGET) : "none"));
				return this.h.restClientCall(attempt);
			})), this.h.inFlight::get, java.time.Duration.ofSeconds(10));

		assertThat(answer).isEqualTo(FakeProviderBodies.OK_SECONDARY);
		assertThat(current).isNotEmpty().allSatisfy((seen) -> {
			String[] parts = seen.split(" ");
			assertThat(parts[1]).isEqualTo(parts[0]);
		});
		assertThat(low(named(LlmObservations.CALL).get(0), LlmObservations.SERVED_BY)).isEqualTo("secondary");
		TestObservationRegistryAssert.assertThat(this.registry).doesNotHaveAnyRemainingCurrentObservation();
	}

	@Test
	void aReactiveCallsParentIsTheObservationInItsReactorContextAndItsAttemptIsInTheCallFunctionsContext() {
		this.h.provider.always("primary", Reply.ok(FakeProviderBodies.OK));
		build("primary", "secondary");
		Observation request = Observation.start("http.server.requests", this.registry);
		List<String> seen = new CopyOnWriteArrayList<>();

		String answer = this.h.time
			.await(this.h.resilience.execute("chat", (attempt) -> Mono.deferContextual((reactor) -> {
				Object current = reactor.getOrDefault("micrometer.observation", null);
				seen.add((current instanceof Observation observation)
						? low((Observation.Context) observation.getContextView(), LlmObservations.TARGET) : "none");
				return this.h.webClientCall(attempt);
			})).contextWrite(Context.of("micrometer.observation", request)), this.h.inFlight::get);
		request.stop();

		assertThat(answer).isEqualTo(FakeProviderBodies.OK);
		assertThat(seen).containsExactly("primary");
		Observation.Context call = named(LlmObservations.CALL).get(0);
		assertThat(call.getParentObservation()).isSameAs(request);
	}

	@Test
	void withoutARegistryOrWithMicrometersNoopOneTheCallHasNoTrace() {
		assertThat(new LlmObservations(ObservationRegistry.NOOP).start("chat", Context.empty())).isNull();
		assertThat(CallTracing.NONE.start("chat", Context.empty())).isNull();
	}

}
