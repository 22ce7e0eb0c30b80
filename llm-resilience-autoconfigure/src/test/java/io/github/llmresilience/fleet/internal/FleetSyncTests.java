package io.github.llmresilience.fleet.internal;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.breaker.internal.Breaker;
import io.github.llmresilience.breaker.internal.Breakers;
import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.change.internal.StateChanges;
import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.fleet.FleetSettings;
import io.github.llmresilience.fleet.FleetStore;
import io.github.llmresilience.fleet.FleetStore.DomainView;
import io.github.llmresilience.fleet.FleetStore.Hold;
import io.github.llmresilience.fleet.FleetStore.Operation;
import io.github.llmresilience.fleet.FleetStore.View;
import io.github.llmresilience.fleet.FleetStore.Write;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.target.internal.TargetRegistry;
import io.github.llmresilience.test.ManualTime;
import io.github.llmresilience.throttle.AccountSettings;
import io.github.llmresilience.throttle.ThrottleSettings;
import io.github.llmresilience.throttle.internal.Accounts;
import io.github.llmresilience.throttle.internal.ThrottleGate;
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
				() -> 0.5);
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
		assertThat(sent.get(0).domains().get(0).calls()).isEqualTo(1);
		assertThat(sent.get(0).domains().get(0).failures()).isEqualTo(1);
		// What is left of the park when it is finally sent.
		assertThat(sent.get(0).writes())
			.containsExactly(new Write(Write.Kind.PARK, "acct", "quota (insufficient_quota)", 50_000));
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
		this.store.answer = (sync) -> new View(serverNow(), 1, List.of(closed(0)), List.of(),
				List.of(new Operation(1, Write.Kind.RELEASE, "acct/gpt-4o")), Map.of("chat", List.of("b")));
		this.fleet.sync();
		this.fleet.sync();
		assertThat(this.gate.isReleased(this.gate.scope("acct/gpt-4o"))).isTrue();
		assertThat(this.registry.chains().get("chat")).containsExactly("b");
		assertThat(this.events).filteredOn((change) -> change.kind() == StateChange.Kind.SCOPE_UNGATED).hasSize(1);
		assertThat(this.events).filteredOn((change) -> change.kind() == StateChange.Kind.CHAIN_EDITED).hasSize(1);
	}

	private DomainView closed(long generation) {
		return new DomainView(DOMAIN, "closed", 0, generation, 0, 0, 0, 0, "", false, "");
	}

	private View view(List<DomainView> domains, List<Hold> holds) {
		return new View(serverNow(), 0, domains, holds, List.of(), Map.of());
	}

	/** A store that answers what the test says, on a clock of its own. */
	static final class ScriptedStore implements FleetStore {

		volatile Function<Sync, View> answer;

		final List<Sync> sent = new CopyOnWriteArrayList<>();

		@Override
		public View sync(Sync sync) {
			this.sent.add(sync);
			return this.answer.apply(sync);
		}

		@Override
		public void listen(Runnable hint) {
		}

		@Override
		public void close() {
		}

	}

}
