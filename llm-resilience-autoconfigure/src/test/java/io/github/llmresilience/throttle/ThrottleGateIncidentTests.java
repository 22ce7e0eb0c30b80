package io.github.llmresilience.throttle;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.change.StateChanges;
import io.github.llmresilience.classify.ClassifierSettings;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.classify.vendor.BuiltInClassifiers;
import io.github.llmresilience.test.ManualTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One incident, one event: the answers of calls that were in flight when a limit hit, a
 * quota ran out or a key went bad must neither flood the events nor escalate the state;
 * and a wait hint too short to mean anything must not leave a scope open to every call.
 */
class ThrottleGateIncidentTests {

	private static final int IN_FLIGHT = 200;

	private final ManualTime time = new ManualTime();

	private final List<StateChange> published = new CopyOnWriteArrayList<>();

	private final ExecutorService pool = Executors.newFixedThreadPool(20);

	@AfterEach
	void stopPool() {
		this.pool.shutdownNow();
	}

	// Item 5: credential locks

	@Test
	void twentyConcurrentCredentialErrorsLockOnceForTheFirstCoolOff() throws Exception {
		Accounts accounts = accounts(this.time);
		Accounts.AccountStatus account = accounts.account("prod");
		Instant start = this.time.instant();

		concurrently(20, () -> accounts.credentialFailure(account, "invalid_api_key"));

		assertThat(events(StateChange.Kind.ACCOUNT_LOCKED)).singleElement()
			.satisfies((locked) -> assertThat(locked.until()).isEqualTo(start.plus(Duration.ofMinutes(1))));
		assertThat(account.lockedUntil()).isEqualTo(start.plus(Duration.ofMinutes(1)));

		// The next incident, after the cool-off, is a new lock and doubles it.
		this.time.advance(Duration.ofMinutes(1));
		assertThat(accounts.isUsable(account)).isTrue();
		accounts.credentialFailure(account, "invalid_api_key");
		accounts.credentialFailure(account, "invalid_api_key");
		assertThat(events(StateChange.Kind.ACCOUNT_LOCKED)).hasSize(2);
		assertThat(account.lockedUntil()).isEqualTo(this.time.instant().plus(Duration.ofMinutes(2)));
	}

	@Test
	void credentialErrorsWhileLockedAreCountedButNeitherRelockNorPublish() {
		Accounts accounts = accounts(this.time);
		Accounts.AccountStatus account = accounts.account("prod");
		Instant start = this.time.instant();

		accounts.credentialFailure(account, "invalid_api_key");
		assertThat(accounts.credentialFailure(account, "invalid_api_key")).isEqualTo(start.plus(Duration.ofMinutes(1)));
		this.time.advance(Duration.ofSeconds(10));
		for (int i = 0; i < 18; i++) {
			assertThat(accounts.credentialFailure(account, "invalid_api_key"))
				.isEqualTo(start.plus(Duration.ofMinutes(1)));
		}
		assertThat(account.consecutiveCredentialErrors()).isEqualTo(18);
		assertThat(events(StateChange.Kind.ACCOUNT_LOCKED)).hasSize(1);
		assertThat(account.lockedUntil()).isEqualTo(start.plus(Duration.ofMinutes(1)));

		// The key never worked in between: the first error after the cool-off is a new
		// lock.
		this.time.advance(Duration.ofSeconds(50));
		accounts.credentialFailure(account, "invalid_api_key");
		assertThat(events(StateChange.Kind.ACCOUNT_LOCKED)).hasSize(2);
		assertThat(account.lockedUntil()).isEqualTo(this.time.instant().plus(Duration.ofMinutes(2)));
	}

	@Test
	void concurrentCredentialErrorsLockOnceOnTheSystemClock() throws Exception {
		Accounts accounts = accounts(Clock.systemUTC());
		Accounts.AccountStatus account = accounts.account("prod");
		Instant before = Instant.now();
		concurrently(20, () -> accounts.credentialFailure(account, "invalid_api_key"));
		Instant after = Instant.now();
		assertThat(events(StateChange.Kind.ACCOUNT_LOCKED)).hasSize(1);
		assertThat(account.lockedUntil()).isBetween(before.plus(Duration.ofMinutes(1)).minusMillis(1),
				after.plus(Duration.ofMinutes(1)).plusMillis(1));
	}

	// Item 6: hints below the floor

	@Test
	void aZeroHintGatesForTheDefaultWaitSoOnlyOneCallReachesTheLimitedTarget() {
		ThrottleGate gate = gate(this.time, ThrottleSettings.defaults());
		ThrottleGate.Scope scope = gate.scope("prod/gpt-4o");
		int requests = 0;
		for (int call = 0; call < 100; call++) {
			if (gate.isReleased(scope)) {
				requests++;
				gate.gate(scope, Duration.ZERO, "rate_limit_exceeded");
			}
			this.time.advance(Duration.ofMillis(1));
		}
		assertThat(requests).isOne();
		assertThat(events(StateChange.Kind.SCOPE_GATED)).hasSize(1);
	}

	@Test
	void hintsBelowTheMinimumWaitCountAsNoHint() {
		ThrottleGate gate = gate(this.time,
				new ThrottleSettings(Duration.ofSeconds(5), Duration.ofSeconds(300), Duration.ofMillis(100)));
		assertThat(gateFor(gate, "a", Duration.ofNanos(500_000))).isEqualTo(Duration.ofSeconds(5));
		assertThat(gateFor(gate, "b", Duration.ofMillis(99))).isEqualTo(Duration.ofSeconds(5));
		assertThat(gateFor(gate, "c", Duration.ofMillis(100))).isEqualTo(Duration.ofMillis(100));
		assertThat(gateFor(gate, "d", null)).isEqualTo(Duration.ofSeconds(5));
		// A zero floor believes every hint, as configured.
		ThrottleGate believing = gate(this.time,
				new ThrottleSettings(Duration.ofSeconds(5), Duration.ofSeconds(300), Duration.ZERO));
		assertThat(gateFor(believing, "e", Duration.ofMillis(1))).isEqualTo(Duration.ofMillis(1));
	}

	@Test
	void resetInstantsAndHttpDatesAlreadyPastUnderClockSkewGateForTheDefaultWait() {
		// Our clock says 12:00:00; the provider's said the limit resets (or to retry) at
		// 11:59:50.
		ManualTime skewed = this.time;
		ThrottleGate gate = gate(skewed, ThrottleSettings.defaults());
		Verdict anthropic = BuiltInClassifiers.forProvider("anthropic", ClassifierSettings.defaults().withClock(skewed))
			.classify(ProviderResponse.of(429,
					headers("anthropic-ratelimit-tokens-remaining", "0", "anthropic-ratelimit-tokens-reset",
							"2026-11-29T11:59:50Z"),
					"{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"rate limited\"}}"));
		Verdict openai = BuiltInClassifiers.forProvider("openai", ClassifierSettings.defaults().withClock(skewed))
			.classify(ProviderResponse.of(429, headers("retry-after", "Sun, 29 Nov 2026 11:59:50 GMT"),
					"{\"error\":{\"code\":\"rate_limit_exceeded\",\"message\":\"slow down\"}}"));
		for (Verdict verdict : List.of(anthropic, openai)) {
			assertThat(verdict.outcome()).isEqualTo(io.github.llmresilience.classify.Outcome.THROTTLED);
			assertThat(verdict.waitHint()).hasValue(Duration.ZERO);
		}
		assertThat(gateFor(gate, "anthropic", anthropic.waitHint().get())).isEqualTo(Duration.ofSeconds(5));
		assertThat(gateFor(gate, "openai", openai.waitHint().get())).isEqualTo(Duration.ofSeconds(5));
	}

	@Test
	void aZeroHintGatesForTheDefaultWaitOnTheSystemClock() {
		ThrottleGate gate = gate(Clock.systemUTC(), ThrottleSettings.defaults());
		ThrottleGate.Scope scope = gate.scope("prod/gpt-4o");
		Instant before = Instant.now();
		Instant until = gate.gate(scope, Duration.ZERO, null);
		Instant after = Instant.now();
		assertThat(until).isBetween(before.plusSeconds(5).minusMillis(1), after.plusSeconds(5).plusMillis(1));
		assertThat(gate.isReleased(scope)).isFalse();
	}

	// Item 8, on the gate's side: a long bare retry-after is cut to max-wait

	@Test
	void aBareRetryAfterOfAMonthGatesTheScopeForMaxWaitOnly() {
		ThrottleGate gate = gate(this.time, ThrottleSettings.defaults());
		Verdict verdict = BuiltInClassifiers.forProvider("openai", ClassifierSettings.defaults().withClock(this.time))
			.classify(ProviderResponse.of(429, headers("retry-after", "2678400"),
					"{\"error\":{\"code\":\"rate_limit_exceeded\",\"message\":\"Rate limit reached\"}}"));
		assertThat(verdict.outcome()).isEqualTo(io.github.llmresilience.classify.Outcome.THROTTLED);
		assertThat(gateFor(gate, "prod/gpt-4o", verdict.waitHint().get())).isEqualTo(Duration.ofSeconds(300));
	}

	// Item 9: event floods --------------------------------------------------------------

	@Test
	void twoHundredConcurrentClosesPublishExactlyOneEvent() throws Exception {
		// Every answer of the incident reads a slightly later "now", as on a real clock.
		Clock ticking = ticking();
		ThrottleGate gate = gate(ticking, ThrottleSettings.defaults());
		ThrottleGate.Scope scope = gate.scope("prod/gpt-4o");
		concurrently(IN_FLIGHT, () -> gate.gate(scope, Duration.ofSeconds(5), "rate_limit_exceeded"));
		assertThat(events(StateChange.Kind.SCOPE_GATED)).hasSize(1);
		// The gate still moved with the latest answer, silently.
		assertThat(Duration.between(this.time.instant(), scope.gatedUntil()))
			.isGreaterThan(Duration.ofSeconds(5).plusMillis(IN_FLIGHT - 50));
	}

	@Test
	void twoHundredConcurrentParksPublishExactlyOneEvent() throws Exception {
		Clock ticking = ticking();
		Accounts accounts = accounts(ticking);
		Accounts.AccountStatus account = accounts.account("prod");
		concurrently(IN_FLIGHT, () -> accounts.park(account, null, "insufficient_quota"));
		assertThat(events(StateChange.Kind.ACCOUNT_PARKED)).hasSize(1);
		assertThat(accounts.isUsable(account)).isFalse();
	}

	@Test
	void aGateExtendedWellPastItsAnnouncedEndPublishesOnceAsAnExtension() {
		ThrottleGate gate = gate(this.time, ThrottleSettings.defaults());
		ThrottleGate.Scope scope = gate.scope("prod/gpt-4o");
		gate.gate(scope, Duration.ofSeconds(5), null);
		this.time.advance(Duration.ofSeconds(1));
		// 4 s left: an extension by up to 2 s (half of it) is silent.
		gate.gate(scope, Duration.ofSeconds(6), null);
		assertThat(events(StateChange.Kind.SCOPE_GATED)).hasSize(1);
		// Ten times longer is news, once.
		gate.gate(scope, Duration.ofSeconds(60), "tokens");
		gate.gate(scope, Duration.ofSeconds(60), "tokens");
		assertThat(events(StateChange.Kind.SCOPE_GATED)).hasSize(2).last().satisfies((extended) -> {
			assertThat(extended.detail()).contains("extended");
			assertThat(extended.until()).isEqualTo(this.time.instant().plusSeconds(60));
		});
		// After the gate passes, the next rate limit is a new transition.
		this.time.advance(Duration.ofSeconds(60));
		gate.gate(scope, Duration.ofSeconds(1), null);
		assertThat(events(StateChange.Kind.SCOPE_GATED)).hasSize(3)
			.last()
			.satisfies((gated) -> assertThat(gated.detail()).contains("gated for 1000 ms"));
	}

	@Test
	void aParkExtendedByLessThanHalfOfWhatIsLeftStaysSilent() {
		Accounts accounts = accounts(this.time);
		Accounts.AccountStatus account = accounts.account("prod");
		accounts.park(account, Duration.ofHours(1), "insufficient_quota");
		this.time.advance(Duration.ofMinutes(10));
		accounts.park(account, Duration.ofHours(1), "insufficient_quota");
		assertThat(events(StateChange.Kind.ACCOUNT_PARKED)).hasSize(1);
		assertThat(account.parkedUntil()).isEqualTo(this.time.instant().plus(Duration.ofHours(1)));
		accounts.park(account, Duration.ofDays(1), "insufficient_quota");
		assertThat(events(StateChange.Kind.ACCOUNT_PARKED)).hasSize(2);
	}

	@Test
	void concurrentClosesPublishOneEventOnTheSystemClock() throws Exception {
		ThrottleGate gate = gate(Clock.systemUTC(), ThrottleSettings.defaults());
		ThrottleGate.Scope scope = gate.scope("prod/gpt-4o");
		Instant before = Instant.now();
		concurrently(IN_FLIGHT, () -> gate.gate(scope, Duration.ofSeconds(5), "rate_limit_exceeded"));
		Instant after = Instant.now();
		assertThat(events(StateChange.Kind.SCOPE_GATED)).hasSize(1);
		assertThat(scope.gatedUntil()).isBetween(before.plusSeconds(5), after.plusSeconds(5).plusMillis(1));
	}

	// Helpers -------------------------------------------------------------------------

	private Duration gateFor(ThrottleGate gate, String key, Duration hint) {
		ThrottleGate.Scope scope = gate.scope(key);
		Instant now = this.time.instant();
		return Duration.between(now, gate.gate(scope, hint, null));
	}

	private ThrottleGate gate(Clock clock, ThrottleSettings settings) {
		return new ThrottleGate(clock, settings, changes(clock));
	}

	private Accounts accounts(Clock clock) {
		return new Accounts(clock, AccountSettings.defaults(), changes(clock));
	}

	private StateChanges changes(Clock clock) {
		StateChanges changes = new StateChanges(clock);
		changes.addListener(this.published::add);
		return changes;
	}

	private List<StateChange> events(StateChange.Kind kind) {
		return this.published.stream().filter((change) -> change.kind() == kind).toList();
	}

	/** Run the action on {@code count} tasks released together by a latch. */
	private void concurrently(int count, Runnable action) throws Exception {
		CountDownLatch start = new CountDownLatch(1);
		List<Future<?>> tasks = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			tasks.add(this.pool.submit(() -> {
				start.await();
				action.run();
				return null;
			}));
		}
		start.countDown();
		for (Future<?> task : tasks) {
			task.get(10, TimeUnit.SECONDS);
		}
	}

	private static Map<String, List<String>> headers(String... namesAndValues) {
		Map<String, List<String>> headers = new LinkedHashMap<>();
		for (int i = 0; i < namesAndValues.length; i += 2) {
			headers.put(namesAndValues[i], List.of(namesAndValues[i + 1]));
		}
		return headers;
	}

	/**
	 * A clock one millisecond later at every read: answers of one incident, spread out.
	 */
	private ManualTime ticking() {
		ManualTime ticking = new ManualTime(this.time.instant());
		ticking.advanceOnEveryRead(Duration.ofMillis(1));
		return ticking;
	}

}
