package io.github.llmresilience.execute;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.metrics.SpendMetrics;
import io.github.llmresilience.spend.Price;
import io.github.llmresilience.spend.SpendSettings;
import io.github.llmresilience.state.TargetState;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The spend trigger against a real HTTP provider: answers that succeed but come four
 * times longer from a point in time on open the primary's breaker (reason {@code spend})
 * within one window, while every call is served (by the secondary once it opened); twice
 * the traffic at the same size opens nothing; garbage or missing usage never throws and
 * never counts; the alert is published once.
 */
class SpendTriggerTests {

	private static final Duration WINDOW = Duration.ofMinutes(1);

	/** One call every 3 s: 20 a window. */
	private static final Duration PACE = Duration.ofSeconds(3);

	/** One-minute windows, a median of 12, judged after 3 windows of 10 answers. */
	private static final SpendSettings SETTINGS = new SpendSettings(true, WINDOW, 12, 3, 10, 3.0, 2.0);

	private static final String PRIMARY_DOMAIN = "openai/gpt-4o/region-primary";

	private final EngineHarness h = new EngineHarness();

	private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

	/** From when the primary's answers are four times longer. */
	private volatile Instant longerFrom = Instant.MAX;

	@AfterEach
	void close() {
		this.h.close();
	}

	@Test
	void answersFourTimesLongerOpenTheBreakerOnSpendWithinOneWindowAndEveryCallIsServed() {
		this.h.provider.script("primary", (n) -> this.h.time.instant().isBefore(this.longerFrom)
				? Reply.ok(answer("primary", 1)) : Reply.ok(answer("primary", 4)));
		this.h.provider.always("secondary", Reply.ok(answer("secondary", 1)));
		build();
		int served = calls(6 * 20);
		// From the middle of a window on.
		served += calls(10);
		this.longerFrom = this.h.time.instant();
		int calls = 0;
		while (breaker().status() == TargetState.BreakerState.Status.CLOSED && calls < 100) {
			served += calls(1);
			calls++;
		}
		Duration tookToOpen = Duration.between(this.longerFrom, this.h.time.instant());
		served += calls(20);

		assertThat(breaker().status()).isEqualTo(TargetState.BreakerState.Status.OPEN);
		assertThat(breaker().reason()).isEqualTo("spend");
		assertThat(tookToOpen).isLessThanOrEqualTo(WINDOW);
		// Availability 100 %: every call answered, the last ones by the secondary but
		// one: after the open duration (30 s), the primary's trial, which closed the
		// breaker, and its answer, still four times longer, opened it again.
		assertThat(served).isEqualTo(6 * 20 + 10 + calls + 20);
		assertThat(this.h.provider.requests("secondary")).isEqualTo(19);
		assertThat(this.h.events(StateChange.Kind.SPEND_ALERT)).hasSize(1);
		assertThat(this.h.events(StateChange.Kind.SPEND_TRIPPED)).singleElement()
			.satisfies((change) -> assertThat(change.subject()).isEqualTo(PRIMARY_DOMAIN));
		assertThat(this.h.events(StateChange.Kind.BREAKER_CLOSED)).hasSize(1);
		assertThat(this.h.events(StateChange.Kind.BREAKER_OPENED)).hasSize(2)
			.allSatisfy((change) -> assertThat(change.detail()).contains("(spend: spend per call"));
		// The spend meter counted both targets: the primary in money, the secondary in
		// tokens.
		assertThat(this.meters.get(SpendMetrics.SPEND).tag("target", "primary").counter().count()).isPositive();
		assertThat(
				this.meters.get(SpendMetrics.SPEND).tag("target", "secondary").tag("unit", "tokens").counter().count())
			.isEqualTo(this.h.provider.requests("secondary") * 1100);
	}

	@Test
	void anOperatorWhoClosesTheBreakerAcceptsTheNewLevel() {
		this.h.provider.script("primary", (n) -> this.h.time.instant().isBefore(this.longerFrom)
				? Reply.ok(answer("primary", 1)) : Reply.ok(answer("primary", 4)));
		this.h.provider.always("secondary", Reply.ok(answer("secondary", 1)));
		build();
		calls(6 * 20);
		this.longerFrom = this.h.time.instant();
		calls(20);
		assertThat(breaker().reason()).isEqualTo("spend");
		assertThat(this.h.resilience.spend().get(PRIMARY_DOMAIN).level()).isEqualTo("tripped");

		this.h.resilience.operator().close("primary");
		int before = this.h.provider.requests("primary");
		calls(3 * 20);

		// The history is learnt again from the new level: the primary serves on.
		assertThat(breaker().status()).isEqualTo(TargetState.BreakerState.Status.CLOSED);
		assertThat(this.h.provider.requests("primary") - before).isEqualTo(3 * 20);
		assertThat(this.h.resilience.spend().get(PRIMARY_DOMAIN)).satisfies((spend) -> {
			assertThat(spend.level()).isEqualTo("normal");
			assertThat(spend.windows()).isEqualTo(3);
			assertThat(spend.unit()).isEqualTo("price");
		});
	}

	@Test
	void twiceTheCallsAtTheSameSizeOpenNothing() {
		this.h.provider.always("primary", Reply.ok(answer("primary", 1)));
		this.h.provider.always("secondary", Reply.ok(answer("secondary", 1)));
		build();
		calls(6 * 20);
		// Twice the traffic for four windows: the window's spend doubles, its spend per
		// call stays.
		callsAt(4 * 40, PACE.dividedBy(2));

		assertThat(breaker().status()).isEqualTo(TargetState.BreakerState.Status.CLOSED);
		assertThat(this.h.events(StateChange.Kind.SPEND_ALERT)).isEmpty();
		assertThat(this.h.provider.requests("secondary")).isZero();
	}

	@Test
	void garbageOrMissingUsageNeverThrowsAndNeverCounts() {
		List<String> bodies = List.of("{\"choices\":[],\"usage\":{\"prompt_tokens\":-5,\"completion_tokens\":-9}}",
				"{\"choices\":[],\"usage\":\"a lot\"}", "{\"choices\":[],\"usage\":{\"prompt_tokens\":1e400}}",
				"{\"choices\":[],\"usage\":{\"prompt_tokens\":99999999999999999999999}}",
				"{\"choices\":[],\"usage\":{\"prompt_tokens\":", "not json at all", FakeProvider.OPENAI_OK, "{}");
		List<Boolean> garbage = new CopyOnWriteArrayList<>();
		this.h.provider.script("primary",
				(n) -> garbage.isEmpty() ? Reply.ok(answer("primary", 1)) : Reply.ok(bodies.get(n % bodies.size())));
		this.h.provider.always("secondary", Reply.ok(answer("secondary", 1)));
		build();
		calls(6 * 20);
		garbage.add(true);
		int served = calls(3 * 20);
		garbage.clear();
		// Ten runaway answers after sixty without usage: those sixty never diluted the
		// window, so its spend per call is the runaway's.
		this.h.provider.always("primary", Reply.ok(answer("primary", 4)));
		while (breaker().status() == TargetState.BreakerState.Status.CLOSED && served < 200) {
			served += calls(1);
		}

		assertThat(served).isGreaterThanOrEqualTo(3 * 20 + 10);
		assertThat(breaker().status()).isEqualTo(TargetState.BreakerState.Status.OPEN);
		assertThat(this.h.provider.requests("secondary")).isZero();
	}

	@Test
	void onTheSystemClockTheBreakerOpensWithinAWindowOfTheChange() {
		Duration window = Duration.ofSeconds(1);
		Clock clock = Clock.systemUTC();
		try (FakeProvider provider = new FakeProvider()) {
			provider.script("primary", (n) -> clock.instant().isBefore(this.longerFrom) ? Reply.ok(answer("primary", 1))
					: Reply.ok(answer("primary", 4)));
			provider.always("secondary", Reply.ok(answer("secondary", 1)));
			LlmResilience resilience = LlmResilience.builder()
				.target(target(provider, "primary"))
				.target(target(provider, "secondary"))
				.chain("chat", "primary", "secondary")
				.spend(new SpendSettings(true, window, 3, 2, 5, 3.0, 2.0))
				.build();
			WebClient client = WebClient.create();
			// Ordinary answers until two windows held enough of them to be remembered (a
			// cold start's first calls may be slow).
			Instant learning = clock.instant().plusSeconds(30);
			while (resilience.spend().get(PRIMARY_DOMAIN).windows() < 2 && clock.instant().isBefore(learning)) {
				call(resilience, client);
			}
			assertThat(resilience.spend().get(PRIMARY_DOMAIN).windows()).as("windows remembered")
				.isGreaterThanOrEqualTo(2);
			this.longerFrom = clock.instant();
			Supplier<TargetState.BreakerState> breaker = () -> resilience.state().target("primary").breaker();
			Instant giveUp = this.longerFrom.plus(window.multipliedBy(3));
			while (breaker.get().status() == TargetState.BreakerState.Status.CLOSED
					&& clock.instant().isBefore(giveUp)) {
				assertThat(call(resilience, client)).isNotEmpty();
			}
			Instant opened = clock.instant();
			assertThat(breaker.get().status()).isEqualTo(TargetState.BreakerState.Status.OPEN);
			assertThat(breaker.get().reason()).isEqualTo("spend");
			// Within one window of the change, give or take the time of a few calls on a
			// busy machine.
			assertThat(Duration.between(this.longerFrom, opened)).isLessThan(window.plusMillis(500));
			assertThat(call(resilience, client)).contains("secondary");
		}
	}

	private static String call(LlmResilience resilience, WebClient client) {
		return resilience.execute("chat", (attempt) -> EngineHarness.handOver(client, attempt))
			.block(Duration.ofSeconds(10));
	}

	private static Target target(FakeProvider provider, String name) {
		return new Target(name, "openai", name, "gpt-4o", "region-" + name, URI.create(provider.baseUrl(name)), null);
	}

	private void build() {
		this.h.build(
				(builder) -> builder.spend(SETTINGS)
					.price("primary", new Price(2.50, 10.00))
					.observer(new SpendMetrics(this.meters, java.util.Map.of("primary", new Price(2.50, 10.00)))),
				"primary", "secondary");
	}

	/** Calls one every {@link #PACE}; returns how many were served. */
	private int calls(int count) {
		return callsAt(count, PACE);
	}

	private int callsAt(int count, Duration pace) {
		int served = 0;
		for (int i = 0; i < count; i++) {
			String body = this.h.time.await(this.h.resilience.execute("chat", this.h::handingOver),
					this.h.inFlight::get);
			if (body != null) {
				served++;
			}
			this.h.time.advance(pace);
		}
		return served;
	}

	private TargetState.BreakerState breaker() {
		return this.h.resilience.state().target("primary").breaker();
	}

	/**
	 * An OpenAI chat completion from a target: a 100-token prompt and an answer of 1,000
	 * tokens times the given length.
	 */
	private static String answer(String target, int length) {
		return "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,"
				+ "\"message\":{\"role\":\"assistant\",\"content\":\"" + "An answer from " + target
				+ ". ".repeat(length)
				+ "\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":100,\"completion_tokens\":"
				+ (1000 * length) + ",\"total_tokens\":" + (100 + 1000 * length) + "}}";
	}

}
