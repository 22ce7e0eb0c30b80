package io.github.llmresilience.spend;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.llmresilience.breaker.Breaker;
import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.breaker.Breakers;
import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.change.StateChanges;
import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.test.ManualTime;
import io.github.resilience4j.circuitbreaker.CircuitBreaker.State;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A domain's spend per call is judged against the median of its past windows: answers
 * four times longer open the breaker within a window, twice the calls at the same size do
 * not, the alert is published once per crossing, garbage usage counts nothing, a runaway
 * never teaches the median its own level, and forgetting the history accepts the new
 * level.
 */
class DomainSpendTests {

	private static final String DOMAIN = "openai/gpt-4o/us";

	private static final Duration WINDOW = Duration.ofMinutes(1);

	private static final Duration OPEN = Duration.ofSeconds(30);

	/** One-minute windows, a median of 12, judged after 3, 10 answers a window. */
	private static final SpendSettings SETTINGS = new SpendSettings(true, WINDOW, 12, 3, 10, 3.0, 2.0);

	private static final BreakerSettings BREAKER = new BreakerSettings(20, 10, 50, Duration.ofSeconds(10), 50, OPEN,
			Duration.ofMinutes(15), 1);

	private final ManualTime time = new ManualTime();

	private final List<StateChange> events = new CopyOnWriteArrayList<>();

	private final StateChanges changes = new StateChanges(this.time);

	private final Breakers breakers = new Breakers(this.time, this.changes);

	private Breaker breaker = this.breakers.forDomain(DOMAIN, BREAKER, (error) -> null);

	private Spend spend = new Spend(SETTINGS, this.time, this.changes);

	private DomainSpend domain = this.spend.forDomain(this.breaker, null);

	DomainSpendTests() {
		this.changes.addListener(this.events::add);
	}

	@Test
	void answersFourTimesLongerOpenTheBreakerWithinOneWindow() {
		steadyWindows(6, 20, 100, 1000);
		// Answers four times longer from the middle of a window on: the window mixes
		// both, so its spend per call climbs past 2x (the alert), then 3x.
		for (int i = 0; i < 10; i++) {
			answer(100, 1000);
			this.time.advance(WINDOW.dividedBy(20));
		}
		long changedAt = this.time.millis();
		int served = 0;
		long openedAt = 0;
		while (served < 200) {
			answer(100, 4000);
			served++;
			if (this.breaker.state() != State.CLOSED) {
				openedAt = this.time.millis();
				break;
			}
			this.time.advance(WINDOW.dividedBy(20));
		}
		assertThat(this.breaker.state()).isEqualTo(State.OPEN);
		// The mixed window ends at (10 x 1,100 + 10 x 4,100) / (20 x 1,100) = 2.4x; the
		// next one reaches 3.7x at its tenth answer: the rest of the changed window and
		// nine answers' spacing after the change.
		assertThat(Duration.ofMillis(openedAt - changedAt))
			.isEqualTo(WINDOW.dividedBy(2).plus(WINDOW.dividedBy(20).multipliedBy(9)))
			.isLessThanOrEqualTo(WINDOW);
		assertThat(this.breaker.isOpenOnSpend()).isTrue();
		// (100 + 4000) / (100 + 1000) = 3.7x the median per call once the window is all
		// runaway; the alert came first.
		assertThat(kinds()).containsSubsequence(StateChange.Kind.SPEND_ALERT, StateChange.Kind.SPEND_TRIPPED,
				StateChange.Kind.BREAKER_OPENED);
		assertThat(only(StateChange.Kind.BREAKER_OPENED).detail()).contains("spend");
		assertThat(this.domain.snapshot().level()).isEqualTo("tripped");
	}

	@Test
	void twiceTheCallsAtTheSameSizeIsGrowthNotARunaway() {
		steadyWindows(6, 20, 1000, 500);
		// Twice, then four times the traffic: the window's total doubles and quadruples,
		// its spend per call stays.
		steadyWindows(3, 40, 1000, 500);
		steadyWindows(3, 80, 1000, 500);
		assertThat(this.breaker.state()).isEqualTo(State.CLOSED);
		assertThat(kinds()).doesNotContain(StateChange.Kind.SPEND_ALERT, StateChange.Kind.SPEND_TRIPPED);
		assertThat(this.domain.snapshot().windows()).isEqualTo(12);
	}

	@Test
	void theAlertIsPublishedOncePerCrossing() {
		steadyWindows(6, 20, 1000, 500);
		// 2.2x per call for three windows: one alert, no opening.
		steadyWindows(3, 20, 1000, 2300);
		assertThat(this.events).filteredOn((change) -> change.kind() == StateChange.Kind.SPEND_ALERT).hasSize(1);
		assertThat(this.breaker.state()).isEqualTo(State.CLOSED);
		// A whole window back below: normal again, once; the next crossing alerts again.
		steadyWindows(2, 20, 1000, 500);
		answer(1000, 500);
		assertThat(this.events).filteredOn((change) -> change.kind() == StateChange.Kind.SPEND_NORMAL).hasSize(1);
		steadyWindows(1, 20, 1000, 2300);
		assertThat(this.events).filteredOn((change) -> change.kind() == StateChange.Kind.SPEND_ALERT).hasSize(2);
	}

	@Test
	void garbageUsageCountsNothing() {
		steadyWindows(6, 20, 1000, 500);
		long calls = this.domain.snapshot().windowCalls();
		this.domain.record(-1, 500);
		this.domain.record(1000, -5);
		this.domain.record(Long.MAX_VALUE, 500);
		this.domain.record(1000, DomainSpend.MAX_TOKENS + 1);
		assertThat(this.domain.snapshot().windowCalls()).isEqualTo(calls);
		assertThat(this.domain.snapshot().windowSpend()).isZero();
		assertThat(this.breaker.state()).isEqualTo(State.CLOSED);
	}

	@Test
	void aDomainIsNotJudgedBeforeItsMinimumWindowsNorAWindowBeforeItsMinimumCalls() {
		steadyWindows(2, 20, 1000, 500);
		// Only two windows known: ten times the spend per call is not judged yet.
		steadyWindows(1, 20, 1000, 15000);
		assertThat(this.breaker.state()).isEqualTo(State.CLOSED);
		steadyWindows(3, 20, 1000, 500);
		// Nine answers of a window are not enough to judge it.
		for (int i = 0; i < 9; i++) {
			answer(1000, 15000);
		}
		assertThat(this.breaker.state()).isEqualTo(State.CLOSED);
		answer(1000, 15000);
		assertThat(this.breaker.state()).isEqualTo(State.OPEN);
	}

	@Test
	void aRunawayOpensTheBreakerAgainAfterItsTrialUntilAnOperatorResetsIt() {
		steadyWindows(6, 20, 1000, 500);
		runaway();
		// A runaway window stays out of the median: after the open time, the trial
		// closes the breaker and the next judged answer opens it again.
		this.time.advance(OPEN.plusSeconds(1));
		assertThat(this.breaker.tryAcquire()).isTrue();
		this.breaker.onSuccess(1_000_000);
		assertThat(this.breaker.state()).isEqualTo(State.CLOSED);
		answer(1000, 6000);
		assertThat(this.breaker.state()).isEqualTo(State.OPEN);
		assertThat(this.events).filteredOn((change) -> change.kind() == StateChange.Kind.BREAKER_OPENED).hasSize(2);
		// Published once: the level stayed tripped.
		assertThat(this.events).filteredOn((change) -> change.kind() == StateChange.Kind.SPEND_TRIPPED).hasSize(1);
		assertThat(this.domain.snapshot().median()).isEqualTo(1500);
		// The operator accepts the new level (the engine's operator resets the breaker
		// and
		// forgets the spend): the history is relearnt.
		this.breaker.reset();
		this.domain.forget();
		assertThat(this.domain.snapshot().windows()).isZero();
		steadyWindows(5, 20, 1000, 6000);
		assertThat(this.breaker.state()).isEqualTo(State.CLOSED);
		assertThat(this.domain.snapshot().median()).isEqualTo(7000);
	}

	@Test
	void anAnswerBackToItsSizeAfterTheTrialKeepsTheBreakerClosedInTheSameWindow() {
		Duration shortOpen = Duration.ofSeconds(10);
		Breaker quick = this.breakers.forDomain("openai/gpt-4o/eu",
				new BreakerSettings(20, 10, 50, Duration.ofSeconds(10), 50, shortOpen, Duration.ofMinutes(15), 1),
				(error) -> null);
		this.breaker = quick;
		this.domain = this.spend.forDomain(quick, null);
		steadyWindows(6, 20, 1000, 500);
		runaway();
		// The trial comes in the window that tripped, whose figure is still the
		// runaway's: the trial's own answer, back to its size, decides.
		this.time.advance(shortOpen.plusSeconds(1));
		assertThat(quick.tryAcquire()).isTrue();
		quick.onSuccess(1_000_000);
		answer(1000, 500);
		assertThat(this.domain.snapshot().ratio()).isGreaterThan(SETTINGS.openMultiple());
		assertThat(quick.state()).isEqualTo(State.CLOSED);
		answer(1000, 500);
		assertThat(quick.state()).isEqualTo(State.CLOSED);
		// Still long: opened again at once.
		answer(1000, 6000);
		assertThat(quick.state()).isEqualTo(State.OPEN);
	}

	@Test
	void aThrowingListenerNeitherStopsTheOpeningNorWedgesTheBreaker() {
		this.changes.addListener((change) -> {
			throw new IllegalStateException("a user's listener fails");
		});
		steadyWindows(6, 20, 1000, 500);
		runaway();
		assertThat(this.breaker.state()).isEqualTo(State.OPEN);
		assertThat(this.breaker.isUsable()).isFalse();
		// After the breaker's open duration, the usual trial closes it.
		this.time.advance(OPEN.plusSeconds(1));
		assertThat(this.breaker.isUsable()).isTrue();
		assertThat(this.breaker.tryAcquire()).isTrue();
		this.breaker.onSuccess(1_000_000);
		assertThat(this.breaker.state()).isEqualTo(State.CLOSED);
		assertThat(this.breaker.isOpenOnSpend()).isFalse();
	}

	@Test
	void aBreakerOpenForFailuresIsLeftAsItIs() {
		steadyWindows(6, 20, 1000, 500);
		for (int i = 0; i < 10; i++) {
			assertThat(this.breaker.tryAcquire()).isTrue();
			this.breaker.onFailure(1_000_000, io.github.llmresilience.classify.Verdict.of(Outcome.AVAILABILITY),
					new RuntimeException("503"));
		}
		assertThat(this.breaker.state()).isEqualTo(State.OPEN);
		assertThat(this.breaker.openOnSpend("spend")).isFalse();
		assertThat(this.breaker.isOpenOnSpend()).isFalse();
	}

	@Test
	void aPriceWeighsOutputAboveInput() {
		Price price = new Price(2.50, 10.00);
		this.spend = new Spend(SETTINGS, this.time, this.changes);
		Breaker other = this.breakers.forDomain("anthropic/claude/eu", BREAKER, (error) -> null);
		DomainSpend priced = this.spend.forDomain(other, price);
		assertThat(priced.unit()).isEqualTo("price");
		assertThat(this.domain.unit()).isEqualTo("tokens");
		// 1,000 in at 2.50 and 500 out at 10.00 per million.
		assertThat(DomainSpend.spendOf(price, 1000, 500)).isCloseTo(0.0075, org.assertj.core.data.Offset.offset(1e-12));
		assertThat(DomainSpend.spendOf(null, 1000, 500)).isEqualTo(1500);
		assertThatIllegalArgumentException().isThrownBy(() -> this.spend.forDomain(other, new Price(3, 15)))
			.withMessageContaining("anthropic/claude/eu")
			.withMessageContaining("different prices");
	}

	@Test
	void nothingIsJudgedWhenSpendIsOff() {
		this.spend = new Spend(SpendSettings.defaults(), this.time, this.changes);
		this.domain = this.spend.forDomain(this.breakers.forDomain("x/y/z", BREAKER, (error) -> null), null);
		steadyWindows(6, 20, 1000, 500);
		steadyWindows(2, 20, 1000, 15000);
		assertThat(this.domain.snapshot().windows()).isZero();
		assertThat(kinds()).isEmpty();
	}

	@Test
	void answersFourTimesLongerInEveryTrafficClassOpenTheBreakerWithinOneWindow() {
		// A chat (100 in, 1,000 out) and a batch job (20 in, 200 out, five times as many
		// calls): each class learns its own median.
		mixedWindows(6, 1);
		assertThat(this.domain.snapshot().windows()).isEqualTo(6);
		long changedAt = this.time.millis();
		long openedAt = 0;
		for (int i = 0; i < 120 && openedAt == 0; i++) {
			mixedAnswer(i, 4);
			if (this.breaker.state() != State.CLOSED) {
				openedAt = this.time.millis();
			}
			this.time.advance(WINDOW.dividedBy(120));
		}
		// (100 + 4,000) / 1,100 and (20 + 800) / 220: 3.7x in each class, against its
		// own median, from the window's tenth answer on.
		assertThat(this.breaker.state()).isEqualTo(State.OPEN);
		assertThat(Duration.ofMillis(openedAt - changedAt)).isLessThan(WINDOW);
		assertThat(only(StateChange.Kind.SPEND_TRIPPED).detail()).startsWith("spend per call 3.73×");
	}

	@Test
	void theBatchStoppingLeavesTheChatAtItsOwnMedian() {
		mixedWindows(12, 1);
		// The batch stops: against a median over both, the chat's answers would read
		// 1,100 / ((20 x 1,100 + 100 x 220) / 120) = 3.0x.
		steadyWindows(3, 20, 100, 1000, "chat");
		assertThat(this.breaker.state()).isEqualTo(State.CLOSED);
		assertThat(kinds()).doesNotContain(StateChange.Kind.SPEND_ALERT, StateChange.Kind.SPEND_TRIPPED);
		answer("chat", 100, 1000);
		assertThat(this.domain.snapshot().ratio()).isEqualTo(1.0);
		assertThat(this.domain.snapshot().median()).isEqualTo(1100);
	}

	@Test
	void aSteadyTrippedLevelIsAdoptedAfterItsWindowsAndTheBreakerServesAgain() {
		useSettings(new SpendSettings(true, WINDOW, 12, 3, 10, 3.0, 2.0, 3));
		steadyWindows(6, 20, 1000, 500);
		runaway();
		nextWindow();
		// While the breaker is open only its trials answer: two a window, still long.
		for (int w = 0; w < 3; w++) {
			assertThat(kinds()).doesNotContain(StateChange.Kind.SPEND_LEVEL_ADOPTED);
			steadyWindows(1, 2, 1000, 6000);
		}
		// The third whole window held the level: adopted, as the next answer or look
		// finds.
		assertThat(this.domain.snapshot().level()).isEqualTo("normal");
		assertThat(only(StateChange.Kind.SPEND_LEVEL_ADOPTED).detail()).startsWith("spend per call held 4.67×")
			.contains("through 3 windows")
			.contains("7000 tokens per call against 1500");
		assertThat(this.domain.snapshot().median()).isEqualTo(7000);
		// The breaker's trial passes now, and stays closed.
		this.time.advance(OPEN.plusSeconds(1));
		assertThat(this.breaker.tryAcquire()).isTrue();
		this.breaker.onSuccess(1_000_000);
		answer(1000, 6000);
		assertThat(this.breaker.state()).isEqualTo(State.CLOSED);
		nextWindow();
		steadyWindows(1, 20, 1000, 6000);
		assertThat(this.breaker.state()).isEqualTo(State.CLOSED);
		// Four times the adopted level opens it again within a window.
		for (int i = 0; i < 10; i++) {
			answer(1000, 27000);
		}
		assertThat(this.breaker.state()).isEqualTo(State.OPEN);
		assertThat(this.events).filteredOn((change) -> change.kind() == StateChange.Kind.SPEND_TRIPPED).hasSize(2);
	}

	@Test
	void aSpendThatKeepsClimbingIsNotAdopted() {
		useSettings(new SpendSettings(true, WINDOW, 12, 3, 10, 3.0, 2.0, 3));
		steadyWindows(6, 20, 1000, 500);
		runaway();
		nextWindow();
		// Three times more every window: never within the alert multiple of its median.
		long output = 6000;
		for (int w = 0; w < 6; w++) {
			output = output * 3;
			steadyWindows(1, 2, 1000, output);
		}
		answer(1000, output);
		assertThat(kinds()).doesNotContain(StateChange.Kind.SPEND_LEVEL_ADOPTED);
		assertThat(this.domain.snapshot().level()).isEqualTo("tripped");
		assertThat(this.domain.snapshot().median()).isEqualTo(1500);
	}

	@Test
	void adoptAfterZeroLeavesTheLevelToAnOperator() {
		useSettings(new SpendSettings(true, WINDOW, 12, 3, 10, 3.0, 2.0, 0));
		steadyWindows(6, 20, 1000, 500);
		runaway();
		steadyWindows(20, 2, 1000, 6000);
		answer(1000, 6000);
		assertThat(kinds()).doesNotContain(StateChange.Kind.SPEND_LEVEL_ADOPTED);
		assertThat(this.domain.snapshot().level()).isEqualTo("tripped");
	}

	@Test
	void aWindowWithoutAnswersNeitherHoldsTheLevelNorEndsTheCount() {
		useSettings(new SpendSettings(true, WINDOW, 12, 3, 10, 3.0, 2.0, 3));
		steadyWindows(6, 20, 1000, 500);
		runaway();
		nextWindow();
		steadyWindows(2, 2, 1000, 6000);
		// Two windows nobody called in (the breaker open, or no traffic).
		this.time.advance(WINDOW.multipliedBy(2));
		assertThat(kinds()).doesNotContain(StateChange.Kind.SPEND_LEVEL_ADOPTED);
		steadyWindows(1, 2, 1000, 6000);
		answer(1000, 6000);
		assertThat(kinds()).contains(StateChange.Kind.SPEND_LEVEL_ADOPTED);
	}

	@Test
	void windowsWhoseFewAnswersAreBackToTheirSizeAdoptNothing() {
		useSettings(new SpendSettings(true, WINDOW, 12, 3, 10, 3.0, 2.0, 3));
		steadyWindows(6, 20, 1000, 500);
		runaway();
		nextWindow();
		// The trials' answers are back to their size, too few a window to lower the
		// level: the level did not hold, there is nothing to adopt.
		steadyWindows(4, 2, 1000, 500);
		answer(1000, 500);
		assertThat(kinds()).doesNotContain(StateChange.Kind.SPEND_LEVEL_ADOPTED);
		assertThat(this.domain.snapshot().median()).isEqualTo(1500);
		// A whole window back to size lowers it.
		steadyWindows(1, 20, 1000, 500);
		answer(1000, 500);
		assertThat(kinds()).contains(StateChange.Kind.SPEND_NORMAL)
			.doesNotContain(StateChange.Kind.SPEND_LEVEL_ADOPTED);
	}

	@Test
	void theFleetsWindowIsJudgedAgainstTheFleetsMixWhenTheFleetSumsIt() {
		mixedWindows(12, 1);
		// The batch stopped across the fleet: 30 chat answers on other pods, 2 batch
		// answers left on this one.
		answer("batch", 20, 200);
		answer("batch", 20, 200);
		long window = Math.floorDiv(this.time.millis(), WINDOW.toMillis());
		this.domain.follow(window, 30, 30 * 1100.0, 30 * 1100.0);
		assertThat(this.domain.snapshot().ratio()).isEqualTo(1.0);
		assertThat(this.breaker.state()).isEqualTo(State.CLOSED);
		// Without the fleet's sum, this pod takes the fleet to be mixed like its own
		// answers: all batch here, so the chat's 1,100 read five times the batch's 220.
		this.domain.follow(window, 30, 30 * 1100.0, Double.NaN);
		assertThat(this.domain.snapshot().ratio()).isCloseTo((30 * 1100.0 + 2 * 220) / (32 * 220),
				org.assertj.core.data.Offset.offset(1e-9));
		assertThat(this.breaker.state()).isEqualTo(State.OPEN);
	}

	@Test
	void whatAPodSendsTheFleetHoldsWhatItsAnswersWereExpectedToSpend() {
		mixedWindows(6, 1);
		answer("chat", 100, 1000);
		answer("batch", 20, 200);
		DomainSpend.Unsent unsent = this.domain.takeUnsent();
		assertThat(unsent).isNotNull();
		assertThat(unsent.calls()).isEqualTo(2);
		assertThat(unsent.spend()).isEqualTo(1320);
		assertThat(unsent.expected()).isEqualTo(1320);
	}

	/** Moves to the next window's start. */
	private void nextWindow() {
		long start = Math.floorDiv(this.time.millis(), WINDOW.toMillis()) * WINDOW.toMillis();
		this.time.advanceTo(java.time.Instant.ofEpochMilli(start + WINDOW.toMillis()));
	}

	private void useSettings(SpendSettings settings) {
		this.spend = new Spend(settings, this.time, this.changes);
		this.domain = this.spend.forDomain(this.breaker, null);
	}

	/**
	 * Whole windows of a chat (100 in, 1,000 out times the length) and a batch job (20
	 * in, 200 out times the length) five times as busy: 120 answers evenly spread.
	 */
	private void mixedWindows(int windows, int length) {
		for (int w = 0; w < windows; w++) {
			long start = Math.floorDiv(this.time.millis(), WINDOW.toMillis()) * WINDOW.toMillis();
			for (int i = 0; i < 120; i++) {
				mixedAnswer(i, length);
				this.time.advance(WINDOW.dividedBy(121));
			}
			this.time.advanceTo(java.time.Instant.ofEpochMilli(start + WINDOW.toMillis()));
		}
	}

	private void mixedAnswer(int i, int length) {
		if (i % 6 == 0) {
			answer("chat", 100, 1000L * length);
		}
		else {
			answer("batch", 20, 200L * length);
		}
	}

	/** Answers four times longer until the breaker opens. */
	private void runaway() {
		for (int i = 0; i < 20 && this.breaker.state() == State.CLOSED; i++) {
			answer(1000, 6000);
			this.time.advance(WINDOW.dividedBy(20));
		}
		assertThat(this.breaker.state()).isEqualTo(State.OPEN);
	}

	/** Whole windows of evenly spread answers, ending on the next window's start. */
	private void steadyWindows(int windows, int calls, long input, long output) {
		steadyWindows(windows, calls, input, output, DomainSpend.NO_CLASS);
	}

	private void steadyWindows(int windows, int calls, long input, long output, String chain) {
		for (int w = 0; w < windows; w++) {
			long start = Math.floorDiv(this.time.millis(), WINDOW.toMillis()) * WINDOW.toMillis();
			for (int i = 0; i < calls; i++) {
				answer(chain, input, output);
				this.time.advance(WINDOW.dividedBy(calls + 1));
			}
			this.time.advanceTo(java.time.Instant.ofEpochMilli(start + WINDOW.toMillis()));
		}
	}

	private void answer(long input, long output) {
		this.domain.record(input, output);
	}

	/** An answer of a call on the chain, in the interactive pool. */
	private void answer(String chain, long input, long output) {
		this.domain.record(chain, "interactive", input, output);
	}

	private List<StateChange.Kind> kinds() {
		return this.events.stream().map(StateChange::kind).toList();
	}

	private StateChange only(StateChange.Kind kind) {
		List<StateChange> matching = this.events.stream().filter((change) -> change.kind() == kind).toList();
		assertThat(matching).hasSize(1);
		return matching.get(0);
	}

}
