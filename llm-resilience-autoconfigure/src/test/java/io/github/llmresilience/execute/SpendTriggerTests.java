package io.github.llmresilience.execute;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import io.github.llmresilience.breaker.BreakerSettings;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

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

	/** Whether the call under way is the batch job's (calls are made one at a time). */
	private volatile boolean batch;

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

	/**
	 * A true change that lasts: the primary's answers come four times longer and stay so.
	 * The breaker opens within the window, and every trial opens it again while the level
	 * is new; once it has held {@code adopt-after} whole windows (6 by default) the level
	 * is adopted as the new normal, with a {@code spend-level-adopted} event, and the
	 * next trial closes the breaker for good: the primary serves every call again.
	 */
	@Test
	void aSustainedNewLevelIsAdoptedAfterItsWindowsAndThePrimaryServesAgain() {
		this.h.provider.script("primary", (n) -> this.h.time.instant().isBefore(this.longerFrom)
				? Reply.ok(answer("primary", 1)) : Reply.ok(answer("primary", 4)));
		this.h.provider.always("secondary", Reply.ok(answer("secondary", 1)));
		build();
		calls(6 * 20);
		this.longerFrom = this.h.time.instant();
		Instant opened = null;
		Instant closedForGood = null;
		int primaryServed = 0;
		// Twelve windows of answers four times longer, a call every 3 s.
		for (int i = 0; i < 12 * 20; i++) {
			int before = this.h.provider.requests("primary");
			calls(1);
			primaryServed += this.h.provider.requests("primary") - before;
			boolean closed = breaker().status() == TargetState.BreakerState.Status.CLOSED;
			if (!closed && opened == null) {
				opened = this.h.time.instant();
			}
			if (opened != null) {
				closedForGood = closed ? ((closedForGood != null) ? closedForGood : this.h.time.instant()) : null;
			}
		}
		List<StateChange> adopted = this.h.events(StateChange.Kind.SPEND_LEVEL_ADOPTED);
		System.out.println("Sustained level: opened " + Duration.between(this.longerFrom, opened)
				+ " after the change, " + "serving for good "
				+ ((closedForGood != null) ? Duration.between(this.longerFrom, closedForGood) : "never")
				+ " after it; the primary served " + primaryServed + " of " + (12 * 20) + " calls; " + adopted);

		assertThat(opened).isNotNull();
		assertThat(Duration.between(this.longerFrom, opened)).isLessThanOrEqualTo(WINDOW);
		assertThat(this.h.events(StateChange.Kind.SPEND_TRIPPED)).hasSize(1);
		assertThat(adopted).singleElement()
			.satisfies((change) -> assertThat(change.subject()).isEqualTo(PRIMARY_DOMAIN));
		// Adopted at the end of the adopt-after-th whole window after the one that
		// tripped; the next trial (after the breaker's open duration) closes the breaker
		// for good.
		assertThat(closedForGood).isNotNull();
		assertThat(Duration.between(this.longerFrom, closedForGood)).isLessThanOrEqualTo(
				WINDOW.multipliedBy(1 + SETTINGS.adoptAfter()).plus(BreakerSettings.defaults().openDuration()));
		assertThat(breaker().status()).isEqualTo(TargetState.BreakerState.Status.CLOSED);
		assertThat(this.h.resilience.spend().get(PRIMARY_DOMAIN)).satisfies((spend) -> {
			assertThat(spend.level()).isEqualTo("normal");
			assertThat(spend.median()).isCloseTo(0.04025, within(1e-9));
		});
		// From the close on, the primary served every call.
		int before = this.h.provider.requests("secondary");
		calls(20);
		assertThat(this.h.provider.requests("secondary")).isEqualTo(before);
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

	@Test
	void onTheSystemClockASustainedLevelIsAdoptedAndThePrimaryServesAgain() {
		Duration window = Duration.ofSeconds(1);
		int adoptAfter = 2;
		Duration open = Duration.ofMillis(200);
		Clock clock = Clock.systemUTC();
		try (FakeProvider provider = new FakeProvider()) {
			provider.script("primary", (n) -> clock.instant().isBefore(this.longerFrom) ? Reply.ok(answer("primary", 1))
					: Reply.ok(answer("primary", 4)));
			provider.always("secondary", Reply.ok(answer("secondary", 1)));
			LlmResilience resilience = LlmResilience.builder()
				.target(target(provider, "primary"))
				.target(target(provider, "secondary"))
				.chain("chat", "primary", "secondary")
				.breaker(new BreakerSettings(20, 10, 50, Duration.ofSeconds(10), 50, open, open, 1))
				.spend(new SpendSettings(true, window, 3, 2, 5, 3.0, 2.0, adoptAfter))
				.listener(this.h.events::add)
				.build();
			WebClient client = WebClient.create();
			Instant learning = clock.instant().plusSeconds(30);
			while (resilience.spend().get(PRIMARY_DOMAIN).windows() < 2 && clock.instant().isBefore(learning)) {
				call(resilience, client);
			}
			assertThat(resilience.spend().get(PRIMARY_DOMAIN).windows()).as("windows remembered")
				.isGreaterThanOrEqualTo(2);
			this.longerFrom = clock.instant();
			// The promise: tripped within a window of the change (and its window may
			// have begun before it), held through adopt-after whole windows, adopted,
			// and served by the primary at the next trial after the breaker's open
			// duration; a busy machine may leave a window without a trial, which
			// delays the adoption by that window: two windows of margin.
			Duration promised = window.multipliedBy(2 + adoptAfter).plus(open);
			Duration margin = window.multipliedBy(2);
			Instant giveUp = this.longerFrom.plus(promised).plus(margin).plus(window.multipliedBy(5));
			Instant servedAgain = null;
			boolean opened = false;
			while (servedAgain == null && clock.instant().isBefore(giveUp)) {
				String answer = call(resilience, client);
				assertThat(answer).isNotEmpty();
				TargetState.BreakerState breaker = resilience.state().target("primary").breaker();
				opened |= breaker.status() != TargetState.BreakerState.Status.CLOSED;
				if (opened && !this.h.events(StateChange.Kind.SPEND_LEVEL_ADOPTED).isEmpty()
						&& answer.contains("primary") && breaker.status() == TargetState.BreakerState.Status.CLOSED) {
					servedAgain = clock.instant();
				}
			}
			assertThat(opened).isTrue();
			assertThat(this.h.events(StateChange.Kind.SPEND_LEVEL_ADOPTED)).singleElement()
				.satisfies((change) -> assertThat(change.subject()).isEqualTo(PRIMARY_DOMAIN));
			assertThat(servedAgain).isNotNull();
			assertThat(Duration.between(this.longerFrom, servedAgain)).isLessThan(promised.plus(margin));
			// The primary serves on at the adopted level.
			for (int i = 0; i < 3; i++) {
				assertThat(call(resilience, client)).contains("primary");
			}
		}
	}

	/**
	 * The trap of a change of traffic mix: for an hour a batch job asks short questions
	 * (150 tokens in, 59 out) on the chat's failure domain, a hundred a window beside the
	 * chat's twenty, and the domain's windows learn a spend per call a quarter of the
	 * chat's. When the batch stops, the chat's answers, of an unchanged size, would read
	 * 4.08 times that median and open the breaker, which every trial would open again.
	 * Judged against the median of their own traffic class (the chat's chain and pool),
	 * they read 1.0: nothing opens and every chat call is served.
	 * @param apart how the batch is told apart from the chat: its own chain, or its own
	 * pool on the chat's chain
	 */
	@ParameterizedTest
	@ValueSource(strings = { "own chain", "own pool" })
	void aChangeOfTrafficMixOpensNothing(String apart) {
		this.h.provider.script("primary",
				(n) -> Reply.ok(this.batch ? answer("Filed.", 150, 59) : answer("primary", 1)));
		this.h.build((builder) -> builder.spend(SpendSettings.defaults().enable())
			.price("primary", new Price(2.50, 10.00))
			.chain("batch", "primary"), "primary");
		String batchChain = apart.equals("own chain") ? "batch" : "chat";
		CallOptions batchOptions = apart.equals("own chain") ? CallOptions.NONE : CallOptions.pool("background");
		// An hour of the default windows (5 minutes, a median of 12): a chat question
		// every 15 s and a batch item every 3 s.
		Duration tick = Duration.ofSeconds(3);
		for (int i = 0; i < 12 * 100; i++) {
			if (i % 5 == 0) {
				assertThat(serves("chat", CallOptions.NONE, false)).isTrue();
			}
			assertThat(serves(batchChain, batchOptions, true)).isTrue();
			this.h.time.advance(tick);
		}
		assertThat(this.h.resilience.spend().get(PRIMARY_DOMAIN).windows()).isEqualTo(12);
		// The batch stops; the chat goes on unchanged for 15 minutes.
		int served = 0;
		double highest = 0;
		for (int i = 0; i < 60; i++) {
			if (serves("chat", CallOptions.NONE, false)) {
				served++;
			}
			highest = Math.max(highest, this.h.resilience.spend().get(PRIMARY_DOMAIN).ratio());
			this.h.time.advance(tick.multipliedBy(5));
		}
		System.out.println("Traffic mix (" + apart + "): chat calls served " + served
				+ " of 60 in 15 min, ratio at most " + highest + "; "
				+ this.h.events.stream().filter((change) -> change.kind().name().startsWith("SPEND")).toList());

		assertThat(served).isEqualTo(60);
		assertThat(this.h.events(StateChange.Kind.SPEND_TRIPPED)).isEmpty();
		assertThat(this.h.events(StateChange.Kind.SPEND_ALERT)).isEmpty();
		// The chat's answers against the chat's own median.
		assertThat(highest).isCloseTo(1.0, within(1e-9));
	}

	/**
	 * Whether one call on a chain is served; {@code batch} picks the provider's answer.
	 */
	private boolean serves(String chain, CallOptions options, boolean batch) {
		this.batch = batch;
		try {
			return this.h.time.await(this.h.resilience.execute(chain, options, this.h::handingOver),
					this.h.inFlight::get) != null;
		}
		catch (LlmUnavailableException ex) {
			return false;
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
		return answer("An answer from " + target + ". ".repeat(length), 100, 1000 * length);
	}

	/** An OpenAI chat completion with the given usage. */
	private static String answer(String content, int input, int output) {
		return "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,"
				+ "\"message\":{\"role\":\"assistant\",\"content\":\"" + content
				+ "\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":" + input + ",\"completion_tokens\":"
				+ output + ",\"total_tokens\":" + (input + output) + "}}";
	}

}
