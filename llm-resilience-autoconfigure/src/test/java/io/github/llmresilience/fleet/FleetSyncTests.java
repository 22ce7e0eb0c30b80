package io.github.llmresilience.fleet;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

import io.github.llmresilience.breaker.Breaker;
import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.breaker.Breakers;
import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.change.StateChanges;
import io.github.llmresilience.classify.ClassificationRule;
import io.github.llmresilience.classify.ClassificationRules;
import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.fleet.FleetStore.DomainView;
import io.github.llmresilience.fleet.FleetStore.Hold;
import io.github.llmresilience.fleet.FleetStore.Operation;
import io.github.llmresilience.fleet.FleetStore.View;
import io.github.llmresilience.fleet.FleetStore.Write;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.target.TargetRegistry;
import io.github.llmresilience.test.ManualTime;
import io.github.llmresilience.throttle.AccountSettings;
import io.github.llmresilience.throttle.Accounts;
import io.github.llmresilience.throttle.ThrottleGate;
import io.github.llmresilience.throttle.ThrottleSettings;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What a pod makes of the fleet's answers, on virtual time against a store whose clock is
 * an hour ahead of the pod's: a skew no real Redis on this machine can show. The script
 * itself is tested against real Redis in the {@code data.redis} tests.
 */
class FleetSyncTests {

	static final String DOMAIN = "openai/gpt-4o/us";

	static final String EPOCH = "pod-0@1";

	final ManualTime time = new ManualTime();

	final List<StateChange> events = new CopyOnWriteArrayList<>();

	final ScriptedStore store = new ScriptedStore();

	final StateChanges changes = new StateChanges(this.time);

	final Breakers breakers = new Breakers(this.time, this.changes);

	final ThrottleGate gate = new ThrottleGate(this.time, ThrottleSettings.defaults(), this.changes);

	final Accounts accounts = new Accounts(this.time, AccountSettings.defaults(), this.changes);

	final Breaker breaker = this.breakers.forDomain(DOMAIN, BreakerSettings.defaults(),
			(error) -> Verdict.of(Outcome.AVAILABILITY));

	final TargetRegistry registry = new TargetRegistry(
			List.of(new Target("a", "openai", "acct", "gpt-4o", "us", URI.create("http://localhost"), null),
					new Target("b", "openai", "acct", "gpt-4o", "eu", URI.create("http://localhost"), null)),
			Map.of("chat", List.of("a", "b")), this.changes);

	final ClassificationRules rules = new ClassificationRules();

	FleetSync fleet;

	/** The store's clock: an hour ahead of the pod's. */
	long serverNow() {
		return this.time.millis() + Duration.ofHours(1).toMillis();
	}

	FleetSync start() {
		return start(Duration.ofMinutes(1));
	}

	FleetSync start(Duration syncInterval) {
		this.changes.addListener(this.events::add);
		this.fleet = new FleetSync(
				new FleetSettings("test", syncInterval, Duration.ofMinutes(2), null, Duration.ofMinutes(1),
						Duration.ZERO, Duration.ofSeconds(1)),
				this.store, this.time, this.changes, this.breakers, this.gate, this.accounts, this.registry, "pod-1",
				() -> 0.5, this.rules);
		// No periodic sync: the test syncs by hand, on virtual time.
		this.fleet.start(false);
		return this.fleet;
	}

	@AfterEach
	void close() {
		if (this.fleet != null) {
			this.fleet.close();
		}
	}

	@Test
	void aGateFromTheFleetEndsWhenTheStoreSaysOnThePodsClock() {
		this.store.answer = (sync) -> view(List.of(closed(0)),
				List.of(new Hold(Write.Kind.GATE, "acct/gpt-4o", serverNow() + 20_000, "rate limited (requests)")));
		start();
		Instant until = this.gate.scope("acct/gpt-4o").gatedUntil();
		assertThat(until).isEqualTo(this.time.instant().plusSeconds(20));
		assertThat(this.events).filteredOn((change) -> change.kind() == StateChange.Kind.SCOPE_GATED)
			.singleElement()
			.satisfies((change) -> assertThat(change.detail()).contains("rate limited (requests), from the fleet"));
	}

	@Test
	void anOpenDomainFromTheFleetOpensTheLocalBreakerUntilTheStoresEnd() {
		this.store.answer = (sync) -> view(List.of(new DomainView(DOMAIN, "open", serverNow() + 30_000, 1, 1, 12, 12, 0,
				"", false, "failure rate 100.0% of 12 calls across the fleet")), List.of());
		start();
		assertThat(this.breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
		assertThat(this.breaker.availableAt()).isEqualTo(this.time.instant().plusSeconds(30));
		assertThat(this.breaker.tryAcquire()).isFalse();
		// Past the fleet's end, this pod still sends nothing until it wins the lease.
		this.time.advance(Duration.ofSeconds(31));
		assertThat(this.breaker.tryAcquire()).isFalse();
		assertThat(this.breaker.isUsable()).isFalse();
		// The store grants the lease to a pod that asks for it.
		this.store.answer = (sync) -> view(List.of(new DomainView(DOMAIN, "open", serverNow() - 1000, 1, 1, 0, 0, 0,
				"pod-1", sync.domains().get(0).wantsProbe(), "")), List.of());
		this.fleet.sync();
		assertThat(this.breaker.tryAcquire()).isTrue();
		assertThat(this.breaker.state()).isEqualTo(CircuitBreaker.State.HALF_OPEN);
		this.breaker.onSuccess(1_000_000);
		assertThat(this.breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
		// The trial's result goes to the fleet with the generation it probed, at once.
		this.store.answer = (sync) -> view(List.of(closed(2)), List.of());
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.store.sent.stream()
				.anyMatch((sync) -> sync.writes().contains(new Write(Write.Kind.TRIAL, DOMAIN, "ok", 1))));
	}

	/**
	 * On a big fleet each pod calls rarely: a pod that calls every 8 s keeps the lease it
	 * won until its next call, which is the trial, rather than giving it back after two
	 * sync intervals and never probing.
	 */
	@Test
	void aPodThatCallsRarelyKeepsItsLeaseUntilItsNextCall() {
		this.store.answer = (sync) -> view(List.of(new DomainView(DOMAIN, "open", serverNow() - 1000, 1, 1, 0, 0, 0, "",
				sync.domains().get(0).wantsProbe(), "")), List.of());
		start(Duration.ofSeconds(1));
		assertThat(this.breaker.tryAcquire()).isFalse();
		this.time.advance(Duration.ofSeconds(8));
		assertThat(this.breaker.tryAcquire()).isFalse();
		this.fleet.sync();
		assertThat(this.breaker.isTrialGranted()).isTrue();
		this.store.answer = (sync) -> view(
				List.of(new DomainView(DOMAIN, "open", serverNow() - 1000, 1, 1, 0, 0, 0, "pod-1", false, "")),
				List.of());
		this.time.advance(Duration.ofSeconds(6));
		this.fleet.sync();
		assertThat(this.breaker.isTrialGranted()).isTrue();
		this.time.advance(Duration.ofSeconds(2));
		assertThat(this.breaker.tryAcquire()).isTrue();
		assertThat(this.breaker.state()).isEqualTo(CircuitBreaker.State.HALF_OPEN);
	}

	@Test
	void anUnusedLeaseGoesBackAfterTwiceThePodsGapBetweenCalls() {
		this.store.answer = (sync) -> view(List.of(new DomainView(DOMAIN, "open", serverNow() - 1000, 1, 1, 0, 0, 0, "",
				sync.domains().get(0).wantsProbe(), "")), List.of());
		start(Duration.ofSeconds(1));
		this.breaker.tryAcquire();
		this.time.advance(Duration.ofSeconds(8));
		this.breaker.tryAcquire();
		this.fleet.sync();
		assertThat(this.breaker.isTrialGranted()).isTrue();
		this.store.answer = (sync) -> view(
				List.of(new DomainView(DOMAIN, "open", serverNow() - 1000, 1, 1, 0, 0, 0, "pod-1", false, "")),
				List.of());
		this.time.advance(Duration.ofSeconds(17));
		this.fleet.sync();
		assertThat(this.breaker.isTrialGranted()).isFalse();
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.store.sent.stream()
				.anyMatch((sync) -> sync.writes().contains(new Write(Write.Kind.UNPROBE, DOMAIN, "", 0))));
	}

	@Test
	void aStoreThatFailsKeepsTheCountsAndWritesAndIsAnnouncedOnce() {
		this.store.answer = (sync) -> view(List.of(closed(0)), List.of());
		start();
		this.store.answer = (sync) -> {
			throw new IllegalStateException("connection refused");
		};
		this.breaker.tryAcquire();
		this.breaker.onFailure(1_000_000, Verdict.of(Outcome.AVAILABILITY), new RuntimeException());
		this.fleet.hold(Write.Kind.PARK, "acct", "quota (insufficient_quota)", this.time.instant().plusSeconds(60));
		this.fleet.sync();
		this.fleet.sync();
		this.fleet.sync();
		assertThat(this.fleet.state().connected()).isFalse();
		List<FleetStore.Sync> sent = new ArrayList<>();
		this.time.advance(Duration.ofSeconds(10));
		this.store.answer = (sync) -> {
			sent.add(sync);
			return view(List.of(closed(0)), List.of());
		};
		this.fleet.sync();
		// One batch, sent four times, to be applied once.
		assertThat(sent.get(0).batches()).singleElement().satisfies((batch) -> {
			assertThat(batch.counts()).singleElement().satisfies((counts) -> {
				assertThat(counts.calls()).isEqualTo(1);
				assertThat(counts.failures()).isEqualTo(1);
			});
			// Up to the one that was answered: the fleet's own thread may sync again
			// meanwhile, so look at a copy, and only at what was sent until then.
			List<FleetStore.Sync> all = List.copyOf(this.store.sent);
			int answered = 0;
			while (all.get(answered) != sent.get(0)) {
				answered++;
			}
			assertThat(answered).isGreaterThanOrEqualTo(4);
			assertThat(all.subList(1, answered + 1))
				.allSatisfy((sync) -> assertThat(sync.batches()).containsExactly(batch));
		});
		// The park's end on the store's clock, however late it is sent.
		assertThat(sent.get(0).writes())
			.containsExactly(new Write(Write.Kind.PARK, "acct", "quota (insufficient_quota)", serverNow() + 50_000));
		assertThat(this.events).extracting(StateChange::kind)
			.containsExactly(StateChange.Kind.FLEET_CONNECTED, StateChange.Kind.FLEET_DISCONNECTED,
					StateChange.Kind.FLEET_CONNECTED);
	}

	@Test
	void aPodThatLosesTheStoreTakesItsOwnTrialsAndFollowsTheFleetAgainWhenItIsBack() {
		DomainView open = new DomainView(DOMAIN, "open", serverNow() + 30_000, 1, 1, 12, 12, 0, "", false,
				"failure rate 100.0% of 12 calls across the fleet");
		this.store.answer = (sync) -> view(List.of(open), List.of());
		start();
		this.store.answer = (sync) -> {
			throw new IllegalStateException("connection refused");
		};
		this.fleet.sync();
		// Past the fleet's end, alone: its own half-open trial.
		this.time.advance(Duration.ofSeconds(31));
		assertThat(this.breaker.tryAcquire()).isTrue();
		assertThat(this.breaker.state()).isEqualTo(CircuitBreaker.State.HALF_OPEN);
		this.breaker.onFailure(1_000_000, Verdict.of(Outcome.AVAILABILITY), new RuntimeException());
		assertThat(this.breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
		// The store is back with the same opening: followed again, whole.
		this.store.answer = (sync) -> view(
				List.of(new DomainView(DOMAIN, "open", serverNow() + 10_000, 1, 1, 0, 0, 0, "", false, "")), List.of());
		this.fleet.sync();
		assertThat(this.breaker.isFleetHeld()).isTrue();
		assertThat(this.breaker.availableAt()).isEqualTo(this.time.instant().plusSeconds(10));
	}

	@Test
	void garbageFromTheStoreNeverThrowsNorHoldsBeyondTheLimits() {
		this.store.answer = (sync) -> view(
				List.of(new DomainView(DOMAIN, "half-broken", -5, 7, -1, -1, -1, -1, "", false, "")),
				List.of(new Hold(Write.Kind.GATE, "acct/gpt-4o", Long.MAX_VALUE / 2, ""),
						new Hold(Write.Kind.PARK, "acct", serverNow() - 5000, "in the past"),
						new Hold(Write.Kind.LOCK, "acct", Long.MAX_VALUE / 2, "forever")));
		start();
		assertThat(this.breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
		assertThat(this.gate.scope("acct/gpt-4o").gatedUntil())
			.isEqualTo(this.time.instant().plus(ThrottleSettings.defaults().maxWait()));
		assertThat(this.accounts.account("acct").parkedUntil()).isBefore(this.time.instant());
		assertThat(this.accounts.account("acct").lockedUntil())
			.isEqualTo(this.time.instant().plus(AccountSettings.defaults().lockDurationMax()));
	}

	@Test
	void anOperatorsReleaseIsAppliedOnceAndChainsFollowTheFleet() {
		this.store.answer = (sync) -> view(List.of(closed(0)),
				List.of(new Hold(Write.Kind.GATE, "acct/gpt-4o", serverNow() + 60_000, "rate limited")));
		start();
		assertThat(this.gate.isReleased(this.gate.scope("acct/gpt-4o"))).isFalse();
		this.store.answer = (sync) -> new View(serverNow(), EPOCH, applied(sync), 1, List.of(closed(0)), List.of(),
				List.of(new Operation(1, Write.Kind.RELEASE, "acct/gpt-4o")), Map.of("chat", List.of("b")), null, 1);
		this.fleet.sync();
		this.fleet.sync();
		assertThat(this.gate.isReleased(this.gate.scope("acct/gpt-4o"))).isTrue();
		assertThat(this.registry.chains().get("chat")).containsExactly("b");
		assertThat(this.events).filteredOn((change) -> change.kind() == StateChange.Kind.SCOPE_UNGATED).hasSize(1);
		assertThat(this.events).filteredOn((change) -> change.kind() == StateChange.Kind.CHAIN_EDITED).hasSize(1);
	}

	@Test
	void rulesEditedOnThisPodGoToTheFleetAndTheFleetsRulesReplaceThemOnce() {
		this.store.answer = (sync) -> view(List.of(closed(0)), List.of());
		start();
		ClassificationRule rule = ClassificationRule.parse("openai", "4xx", "tokens", "Requested ~, 50% |x", "REQUEST",
				"30s");
		this.rules.add(null, rule, ClassificationRules.OPERATOR);
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.store.sent.stream()
				.flatMap((sync) -> sync.writes().stream())
				.anyMatch((write) -> write.kind() == Write.Kind.RULES));
		String encoded = this.store.sent.stream()
			.flatMap((sync) -> sync.writes().stream())
			.filter((write) -> write.kind() == Write.Kind.RULES)
			.findFirst()
			.orElseThrow()
			.value();
		assertThat(encoded).doesNotContain("\t", "\n", "|");
		assertThat(RuleCodec.decode(encoded)).containsExactly(rule);
		// Another pod's edit comes back from the store: applied once, not sent back.
		ClassificationRule other = ClassificationRule.parse(null, "429", null, "high demand", "AVAILABILITY", null);
		String fleetRules = RuleCodec.encode(List.of(other));
		this.store.answer = (sync) -> new View(serverNow(), EPOCH, applied(sync), 0, List.of(closed(0)), List.of(),
				List.of(), Map.of(), fleetRules, 1);
		int sentBefore = this.store.sent.size();
		this.fleet.sync();
		this.fleet.sync();
		assertThat(this.rules.rules()).containsExactly(other);
		assertThat(this.store.sent.subList(sentBefore, this.store.sent.size()))
			.allSatisfy((sync) -> assertThat(sync.writes()).isEmpty());
	}

	/**
	 * A gate the fleet holds, seen at every sync: its jitter is drawn once, so the pod's
	 * end stays put rather than creep to the largest jitter of all its draws.
	 */
	@Test
	void aMirroredGatesJitterIsDrawnOncePerEnd() {
		double[] draws = { 0.1, 0.9, 0.8, 0.95, 0.7, 0.99 };
		int[] next = { 0 };
		this.changes.addListener(this.events::add);
		this.fleet = new FleetSync(
				new FleetSettings("test", Duration.ofMinutes(1), Duration.ofMinutes(2), null, Duration.ofMinutes(1),
						Duration.ofSeconds(1), Duration.ofSeconds(1)),
				this.store, this.time, this.changes, this.breakers, this.gate, this.accounts, this.registry, "pod-1",
				() -> draws[next[0]++ % draws.length], this.rules);
		long end = serverNow() + 30_000;
		this.store.answer = (sync) -> view(List.of(closed(0)),
				List.of(new Hold(Write.Kind.GATE, "acct/gpt-4o", end, "rate limited")));
		this.fleet.start(false);
		for (int i = 0; i < 5; i++) {
			this.fleet.sync();
		}
		assertThat(this.gate.scope("acct/gpt-4o").gatedUntil()).isEqualTo(this.time.instant().plusMillis(30_100));
		// A new end of the fleet's gets a draw of its own.
		this.store.answer = (sync) -> view(List.of(closed(0)),
				List.of(new Hold(Write.Kind.GATE, "acct/gpt-4o", end + 10_000, "rate limited")));
		this.fleet.sync();
		this.fleet.sync();
		assertThat(this.gate.scope("acct/gpt-4o").gatedUntil()).isEqualTo(this.time.instant().plusMillis(40_900));
	}

	/**
	 * A sync the store has not answered: no other is sent behind it, what is counted
	 * meanwhile goes in a later batch, and an answer that comes late acknowledges what it
	 * applied.
	 */
	@Test
	void noSyncIsSentBehindOneTheStoreHasNotAnswered() {
		this.store.answer = (sync) -> view(List.of(closed(0)), List.of());
		start();
		CompletableFuture<View> late = new CompletableFuture<>();
		this.store.future = (sync) -> late;
		this.breaker.tryAcquire();
		this.breaker.onFailure(1_000_000, Verdict.of(Outcome.AVAILABILITY), new RuntimeException());
		int sent = this.store.sent.size();
		this.fleet.sync();
		assertThat(this.fleet.state().connected()).isFalse();
		FleetStore.Sync stuck = this.store.sent.get(sent);
		assertThat(stuck.batches()).hasSize(1);
		this.breaker.tryAcquire();
		this.breaker.onSuccess(1_000_000);
		this.time.advance(Duration.ofSeconds(1));
		this.fleet.sync();
		this.fleet.sync();
		assertThat(this.store.sent).hasSize(sent + 1);
		// The store runs it at last: its answer says it applied the first batch.
		late.complete(new View(serverNow(), EPOCH, stuck.batches().get(0).sequence(), 0, List.of(closed(0)), List.of(),
				List.of(), Map.of(), null, 1));
		this.store.future = null;
		this.fleet.sync();
		FleetStore.Sync next = this.store.sent.get(sent + 1);
		assertThat(next.batches()).singleElement()
			.satisfies((batch) -> assertThat(batch.counts().get(0).calls()).isEqualTo(1))
			.satisfies((batch) -> assertThat(batch.counts().get(0).failures()).isZero());
		assertThat(this.fleet.state().connected()).isTrue();
	}

	@Test
	void aSyncOutForTenCommandTimeoutsIsGivenUpAndAnotherSent() {
		this.store.answer = (sync) -> view(List.of(closed(0)), List.of());
		start();
		CompletableFuture<View> never = new CompletableFuture<>();
		this.store.future = (sync) -> never;
		int sent = this.store.sent.size();
		this.fleet.sync();
		this.time.advance(Duration.ofSeconds(9));
		this.fleet.sync();
		assertThat(this.store.sent).hasSize(sent + 1);
		this.time.advance(Duration.ofSeconds(2));
		this.store.future = null;
		this.fleet.sync();
		assertThat(never).isCancelled();
		assertThat(this.store.sent).hasSize(sent + 2);
		assertThat(this.fleet.state().connected()).isTrue();
	}

	@Test
	void holdsWaitForTheStoresClockAndGoOnIt() {
		CompletableFuture<View> first = new CompletableFuture<>();
		this.store.future = (sync) -> first;
		this.store.answer = (sync) -> view(List.of(closed(0)), List.of());
		this.changes.addListener(this.events::add);
		this.fleet = new FleetSync(
				new FleetSettings("test", Duration.ofMinutes(1), Duration.ofMinutes(2), null, Duration.ofMinutes(1),
						Duration.ZERO, Duration.ofMillis(100)),
				this.store, this.time, this.changes, this.breakers, this.gate, this.accounts, this.registry, "pod-1",
				() -> 0.5, this.rules);
		// The first answer does not come within the start's wait: the pod starts.
		this.fleet.start(false);
		this.fleet.hold(Write.Kind.GATE, "acct/gpt-4o", "rate limited", this.time.instant().plusSeconds(20));
		first.complete(view(List.of(closed(0)), List.of()));
		this.store.future = null;
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.store.sent.stream()
				.flatMap((sync) -> sync.writes().stream())
				.anyMatch((write) -> write.kind() == Write.Kind.GATE));
		// Never sent before the offset was known; sent as the store's end.
		assertThat(this.store.sent.get(0).writes()).isEmpty();
		assertThat(this.store.sent.stream().flatMap((sync) -> sync.writes().stream()))
			.filteredOn((write) -> write.kind() == Write.Kind.GATE)
			.first()
			.satisfies((write) -> assertThat(write.number()).isEqualTo(serverNow() + 20_000));
	}

	/**
	 * The store answers a new epoch (it lost its keys): the pod follows nothing it says
	 * of the lost state and publishes what it holds again.
	 */
	@Test
	void aStoreThatLostItsStateGetsWhatThePodHoldsAgain() {
		this.store.answer = (sync) -> view(List.of(closed(0)),
				List.of(new Hold(Write.Kind.PARK, "acct", serverNow() + 60_000, "quota (insufficient_quota)")));
		start();
		this.breaker.forceOpen();
		this.registry.replaceChain("chat", List.of("b", "a"));
		this.gate.gate(this.gate.scope("acct/gpt-4o"), Duration.ofSeconds(30), "requests");
		// The emptied store: closed, no holds, another epoch, until the pod's writes
		// (sent on a sync of their own, on the fleet's thread) come back.
		List<Write> received = new CopyOnWriteArrayList<>();
		this.store.answer = (sync) -> {
			received.addAll(sync.writes());
			boolean forced = received.contains(new Write(Write.Kind.BREAKER, DOMAIN, "forced-open", 0));
			return new View(serverNow(), "pod-9@2", 0, 0, List.of(forced
					? new DomainView(DOMAIN, "forced-open", 0, 1, 0, 0, 0, 0, "", false, "by an operator") : closed(0)),
					List.of(), List.of(), Map.of(), null, 1);
		};
		this.fleet.sync();
		await().atMost(Duration.ofSeconds(5))
			.until(() -> received.containsAll(List.of(new Write(Write.Kind.BREAKER, DOMAIN, "forced-open", 0),
					new Write(Write.Kind.CHAIN, "chat", "b,a", 0),
					new Write(Write.Kind.PARK, "acct", "quota (insufficient_quota)", serverNow() + 60_000),
					new Write(Write.Kind.GATE, "acct/gpt-4o", "rate limited, republished", serverNow() + 30_000))));
		this.fleet.sync();
		assertThat(this.breaker.state()).isEqualTo(CircuitBreaker.State.FORCED_OPEN);
		assertThat(this.events).filteredOn((change) -> change.kind() == StateChange.Kind.BREAKER_CLOSED).isEmpty();
		assertThat(this.events).filteredOn((change) -> change.kind() == StateChange.Kind.FLEET_STATE_LOST).hasSize(1);
	}

	/**
	 * A domain whose generation went backwards (its key evicted, say): its opening is
	 * published again rather than the store's "closed" followed.
	 */
	@Test
	void aGenerationThatWentBackwardsIsNotFollowed() {
		this.store.answer = (sync) -> view(List.of(new DomainView(DOMAIN, "open", serverNow() + 30_000, 7, 1, 12, 12, 0,
				"", false, "failure rate 100.0% of 12 calls across the fleet")), List.of());
		start();
		assertThat(this.breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
		Write republished = new Write(Write.Kind.OPEN, DOMAIN,
				"failure rate 100.0% of 12 calls across the fleet (republished)", serverNow() + 30_000);
		List<Write> received = new CopyOnWriteArrayList<>();
		this.store.answer = (sync) -> {
			received.addAll(sync.writes());
			return view(List.of(received.contains(republished)
					? new DomainView(DOMAIN, "open", serverNow() + 30_000, 1, 1, 0, 0, 0, "", false, "republished")
					: closed(0)), List.of());
		};
		this.fleet.sync();
		await().atMost(Duration.ofSeconds(5)).until(() -> received.contains(republished));
		this.fleet.sync();
		assertThat(this.breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
		assertThat(this.breaker.availableAt()).isEqualTo(this.time.instant().plusSeconds(30));
		assertThat(this.events).filteredOn((change) -> change.kind() == StateChange.Kind.BREAKER_CLOSED).isEmpty();
	}

	@Test
	void aServersRefusalIsToldInItsOwnWordsAndAnythingElseByItsType() {
		assertThat(FleetSync.describe(new IllegalStateException("Error in execution",
				new RuntimeException("NOPERM this user has no permissions to run the 'zadd' command"))))
			.isEqualTo("NOPERM this user has no permissions to run the 'zadd' command");
		assertThat(FleetSync.describe(new IllegalStateException("Unable to connect to redis.internal:6379")))
			.isEqualTo("IllegalStateException");
		// A Cluster's redirection names a node's address.
		assertThat(FleetSync.describe(new IllegalStateException("MOVED 3999 10.0.0.7:6381")))
			.isEqualTo("IllegalStateException");
	}

	private DomainView closed(long generation) {
		return new DomainView(DOMAIN, "closed", 0, generation, 0, 0, 0, 0, "", false, "");
	}

	private View view(List<DomainView> domains, List<Hold> holds) {
		return new View(serverNow(), EPOCH, 0, 0, domains, holds, List.of(), Map.of(), null, 1);
	}

	/** The last batch a sync sent, as a store that applied it acknowledges. */
	static long applied(FleetStore.Sync sync) {
		return sync.batches().isEmpty() ? 0 : sync.batches().get(sync.batches().size() - 1).sequence();
	}

	/** A store that answers what the test says, on a clock of its own. */
	static final class ScriptedStore implements FleetStore {

		volatile Function<Sync, View> answer;

		/** When set, the future each sync gets (one that never completes, say). */
		volatile Function<Sync, CompletableFuture<View>> future;

		final List<Sync> sent = new CopyOnWriteArrayList<>();

		@Override
		public CompletableFuture<View> sync(Sync sync) {
			this.sent.add(sync);
			if (this.future != null) {
				return this.future.apply(sync);
			}
			try {
				return CompletableFuture.completedFuture(this.answer.apply(sync));
			}
			catch (RuntimeException ex) {
				return CompletableFuture.failedFuture(ex);
			}
		}

		@Override
		public void listen(Runnable hint) {
		}

		@Override
		public void close() {
		}

	}

}
