package io.github.llmresilience.data.redis;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.fleet.FleetSettings;
import io.github.llmresilience.fleet.FleetStore.Batch;
import io.github.llmresilience.fleet.FleetStore.Counts;
import io.github.llmresilience.fleet.FleetStore.Domain;
import io.github.llmresilience.fleet.FleetStore.DomainView;
import io.github.llmresilience.fleet.FleetStore.Sync;
import io.github.llmresilience.fleet.FleetStore.View;
import io.github.llmresilience.fleet.FleetStore.Write;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sync script on the real Redis of {@code .ci/run}, one pod's round trip at a time.
 */
class RedisFleetStoreTests {

	static final String DOMAIN = "openai/gpt-4o/us";

	static final BreakerSettings BREAKER = new BreakerSettings(20, 4, 50, Duration.ofSeconds(10), 50,
			Duration.ofSeconds(30), Duration.ofMinutes(15), 1);

	FleetPods fleet;

	LettuceConnectionFactory connection;

	RedisFleetStore store;

	@BeforeEach
	void connect() {
		this.fleet = FleetPods.onCiRedis();
		this.connection = this.fleet.connection(FleetSettings.defaults(this.fleet.namespace));
		this.store = new RedisFleetStore(new ReactiveStringRedisTemplate(this.connection), this.fleet.namespace);
	}

	@AfterEach
	void close() {
		this.connection.destroy();
		this.fleet.close();
	}

	/** Each pod's last batch number. */
	final Map<String, Long> batches = new HashMap<>();

	View sync(String pod, long calls, long failures, boolean wantsProbe, Write... writes) {
		List<Batch> batches = (calls > 0) ? List.of(batch(pod, new Counts(DOMAIN, calls, failures, 0))) : List.of();
		return send(new Sync(
				pod, "one", "", -1, Duration.ofSeconds(30), Duration.ofSeconds(5), List.of(new Domain(DOMAIN, BREAKER,
						Duration.ofSeconds(1), wantsProbe, false, Duration.ofSeconds(10), -1, 0)),
				batches, List.of(writes)));
	}

	View spend(String pod, long window, long calls, double spend) {
		List<Batch> batches = (calls > 0) ? List.of(batch(pod, new Counts(DOMAIN, 0, 0, 0, window, calls, spend)))
				: List.of();
		return send(new Sync(pod, "one", "", -1, Duration.ofSeconds(30), Duration.ofSeconds(5),
				List.of(new Domain(DOMAIN, BREAKER, null, false, false, Duration.ofSeconds(10), window, 60_000)),
				batches, List.of()));
	}

	Batch batch(String pod, Counts counts) {
		return new Batch(this.batches.merge(pod, 1L, Long::sum), 0, List.of(counts));
	}

	View send(Sync sync) {
		return this.store.sync(sync).orTimeout(5, TimeUnit.SECONDS).join();
	}

	@Test
	void spendFromSeveralPodsIsSummedPerWindowAndTheTwoLatestAreKept() {
		DomainView a = spend("a", 100, 3, 0.0075).domains().get(0);
		assertThat(a.spendWindow()).isEqualTo(100);
		assertThat(a.spendCalls()).isEqualTo(3);
		DomainView b = spend("b", 100, 2, 0.005).domains().get(0);
		assertThat(b.spendCalls()).isEqualTo(5);
		assertThat(b.spend()).isCloseTo(0.0125, org.assertj.core.data.Offset.offset(1e-12));
		// The next window starts from zero; the one before the last is dropped.
		assertThat(spend("a", 101, 1, 1).domains().get(0).spendCalls()).isEqualTo(1);
		assertThat(spend("a", 102, 0, 0).domains().get(0).spendCalls()).isZero();
		assertThat(spend("b", 100, 0, 0).domains().get(0).spendCalls()).isZero();
		// A pod that judges no spend sends none and is told none.
		assertThat(sync("c", 0, 0, false).domains().get(0).spendWindow()).isEqualTo(-1);
	}

	@Test
	void countsFromSeveralPodsOpenTheDomainOnceTheyReachTheMinimum() {
		assertThat(sync("a", 2, 2, false).domains().get(0).status()).isEqualTo("closed");
		DomainView opened = sync("b", 2, 2, false).domains().get(0);
		assertThat(opened.status()).isEqualTo("open");
		assertThat(opened.generation()).isEqualTo(1);
		assertThat(opened.openings()).isEqualTo(1);
		assertThat(opened.reason()).isEqualTo("failure rate 100.0%, slow-call rate 0.0% of 4 calls across the fleet");
		// The probe interval is shorter than the open duration: a trial after 1 s.
		View view = sync("c", 0, 0, false);
		assertThat(view.domains().get(0).untilMillis() - view.serverMillis()).isBetween(0L, 1000L);
	}

	@Test
	void onlyOnePodWinsTheProbeAndAStaleTrialResultChangesNothing() {
		sync("a", 4, 4, false);
		// The lease is raced for once the open time (1 s, the probe interval) passed.
		View first = await().atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> sync("a", 0, 0, true), (view) -> view.domains().get(0).probeGranted());
		assertThat(sync("b", 0, 0, true).domains().get(0).probeGranted()).isFalse();
		assertThat(sync("b", 0, 0, false).domains().get(0).prober()).isEqualTo("a");
		// Pod b reports a trial it never held, for an old generation: ignored.
		DomainView afterStale = sync("b", 0, 0, false, new Write(Write.Kind.TRIAL, DOMAIN, "ok", 0)).domains().get(0);
		assertThat(afterStale.status()).isEqualTo("open");
		assertThat(afterStale.prober()).isEqualTo("a");
		// The holder's failed trial reopens it (one more opening) and gives the lease
		// back.
		DomainView reopened = sync("a", 0, 0, false,
				new Write(Write.Kind.TRIAL, DOMAIN, "failed", first.domains().get(0).generation()))
			.domains()
			.get(0);
		assertThat(reopened.status()).isEqualTo("open");
		assertThat(reopened.openings()).isEqualTo(2);
		assertThat(reopened.prober()).isEmpty();
	}

	@Test
	void holdsKeepTheLaterEndAndAnOperatorsLiftIsLogged() {
		long now = sync("a", 0, 0, false).serverMillis();
		sync("a", 0, 0, false, new Write(Write.Kind.GATE, "acct/gpt-4o", "rate limited", now + 20_000));
		View view = sync("b", 0, 0, false, new Write(Write.Kind.GATE, "acct/gpt-4o", "rate limited", now + 5_000));
		assertThat(view.holds()).singleElement().satisfies((hold) -> {
			assertThat(hold.kind()).isEqualTo(Write.Kind.GATE);
			assertThat(hold.untilMillis() - view.serverMillis()).isBetween(15_000L, 20_000L);
		});
		View lifted = sync("b", 0, 0, false, new Write(Write.Kind.RELEASE, "acct/gpt-4o", "", 0));
		assertThat(lifted.holds()).isEmpty();
		View later = send(new Sync("c", "one", view.epoch(), 0, Duration.ofSeconds(30), Duration.ofSeconds(5),
				List.of(), List.of(), List.of()));
		assertThat(later.operations()).singleElement()
			.satisfies((operation) -> assertThat(operation.kind()).isEqualTo(Write.Kind.RELEASE));
	}

	@Test
	void whatThePodsAnswersWouldHaveSpentAtTheirClassesMediansIsSummedToo() {
		Domain domain = new Domain(DOMAIN, BREAKER, null, false, false, Duration.ofSeconds(10), 100, 60_000);
		send(new Sync("a", "one", "", -1, Duration.ofSeconds(30), Duration.ofSeconds(5), List.of(domain),
				List.of(batch("a", new Counts(DOMAIN, 0, 0, 0, 100, 3, 0.0075, 0.003))), List.of()));
		DomainView view = send(new Sync("b", "one", "", -1, Duration.ofSeconds(30), Duration.ofSeconds(5),
				List.of(domain), List.of(batch("b", new Counts(DOMAIN, 0, 0, 0, 100, 2, 0.005, 0.002))), List.of()))
			.domains()
			.get(0);
		assertThat(view.spendCalls()).isEqualTo(5);
		assertThat(view.spendExpected()).isCloseTo(0.005, org.assertj.core.data.Offset.offset(1e-12));
	}

	@Test
	void aBatchSentAgainIsAppliedOnceAndAcknowledged() {
		Batch batch = batch("a", new Counts(DOMAIN, 3, 1, 0));
		Sync sync = new Sync("a", "one", "", -1, Duration.ofSeconds(30), Duration.ofSeconds(5),
				List.of(domain(false, false)), List.of(batch), List.of());
		// The same script twice, as a stalled server runs a sync the pod also sent
		// again.
		send(sync);
		View again = send(sync);
		assertThat(again.appliedBatch()).isEqualTo(batch.sequence());
		assertThat(again.domains().get(0).calls()).isEqualTo(3);
		assertThat(again.domains().get(0).failures()).isEqualTo(1);
		// Another incarnation of the pod (a restart) numbers its batches anew.
		View restarted = send(new Sync("a", "two", "", -1, Duration.ofSeconds(30), Duration.ofSeconds(5),
				List.of(domain(false, false)), List.of(new Batch(1, 0, List.of(new Counts(DOMAIN, 2, 0, 0)))),
				List.of()));
		assertThat(restarted.domains().get(0).calls()).isEqualTo(5);
	}

	@Test
	void countsGoToTheSecondTheyWereCountedInAndOlderThanTheWindowAreDropped() {
		long now = sync("a", 0, 0, false).serverMillis();
		View view = send(new Sync("a", "one", "", -1, Duration.ofSeconds(30), Duration.ofSeconds(5),
				List.of(domain(false, false)), List.of(new Batch(1, now - 60_000, List.of(new Counts(DOMAIN, 7, 7, 0))),
						new Batch(2, now - 5_000, List.of(new Counts(DOMAIN, 2, 0, 0)))),
				List.of()));
		assertThat(view.appliedBatch()).isEqualTo(2);
		assertThat(view.domains().get(0).calls()).isEqualTo(2);
	}

	@Test
	void aPodAskingAgainForTheLeaseItHoldsIsGrantedIt() {
		sync("a", 4, 4, false);
		await().atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> sync("a", 0, 0, true), (view) -> view.domains().get(0).probeGranted());
		// The answer never reached pod a (its sync had timed out): it asks again, and
		// is granted the lease it holds; pod b is not.
		assertThat(sync("a", 0, 0, true).domains().get(0).probeGranted()).isTrue();
		assertThat(sync("b", 0, 0, true).domains().get(0).probeGranted()).isFalse();
	}

	@Test
	void aLeaseWhoseHolderStoppedSyncingIsFreeAfterTheLiveness() {
		Duration liveness = Duration.ofSeconds(1);
		send(sync("a", liveness, domain(false, false), List.of(batch("a", new Counts(DOMAIN, 4, 4, 0)))));
		await().atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> send(sync("a", liveness, domain(true, false), List.of())),
					(view) -> view.domains().get(0).probeGranted());
		// A holder that says it holds keeps it...
		assertThat(send(sync("b", liveness, domain(true, false), List.of())).domains().get(0).prober()).isEqualTo("a");
		// ...and one that died (no sync from a from here on) loses it within the
		// liveness, not the 10 s lease.
		long start = System.nanoTime();
		await().atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> send(sync("b", liveness, domain(true, false), List.of())),
					(view) -> view.domains().get(0).probeGranted());
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
	}

	@Test
	void aHolderThatSaysItHoldsTheLeaseKeepsItBeyondTheLeasesLife() {
		Domain holds = new Domain(DOMAIN, BREAKER, Duration.ofSeconds(1), false, true, Duration.ofSeconds(1), -1, 0);
		Domain wants = new Domain(DOMAIN, BREAKER, Duration.ofSeconds(1), true, false, Duration.ofSeconds(1), -1, 0);
		send(sync("a", Duration.ofSeconds(5), wants, List.of(batch("a", new Counts(DOMAIN, 4, 4, 0)))));
		await().atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> send(sync("a", Duration.ofSeconds(5), wants, List.of())),
					(view) -> view.domains().get(0).probeGranted());
		// Kept alive every 300 ms for 2 s, twice the lease's life.
		long until = System.nanoTime() + Duration.ofSeconds(2).toNanos();
		await().atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(300))
			.until(() -> "a".equals(send(sync("a", Duration.ofSeconds(5), holds, List.of())).domains().get(0).prober())
					&& System.nanoTime() > until);
		assertThat(send(sync("b", Duration.ofSeconds(5), wants, List.of())).domains().get(0).prober()).isEqualTo("a");
	}

	@Test
	void aPodsOwnOpeningMakesTheFleetJudgeBelowTheMinimumOnItsRates() {
		// 3 calls, all failed, under a minimum of 4: a pod whose own breaker opened says
		// so, and the fleet's rate decides.
		View view = sync("a", 3, 3, false, new Write(Write.Kind.OPENED, DOMAIN, "pod a's breaker opened", 0));
		assertThat(view.domains().get(0).status()).isEqualTo("open");
		assertThat(view.domains().get(0).reason())
			.endsWith("of 3 calls across the fleet, after pod a's breaker opened");
	}

	@Test
	void aPodsOwnOpeningUnderAFleetThatAnswersWellOpensNothing() {
		sync("b", 3, 0, false);
		View view = sync("a", 2, 2, false, new Write(Write.Kind.OPENED, DOMAIN, "pod a's breaker opened", 0));
		assertThat(view.domains().get(0).status()).isEqualTo("closed");
	}

	@Test
	void aRepublishedOpeningNeverShortensOneNorOverridesAnOperator() {
		long now = sync("a", 0, 0, false).serverMillis();
		View opened = sync("a", 0, 0, false, new Write(Write.Kind.OPEN, DOMAIN, "republished", now + 20_000));
		assertThat(opened.domains().get(0).status()).isEqualTo("open");
		assertThat(opened.domains().get(0).untilMillis()).isEqualTo(now + 20_000);
		View shorter = sync("b", 0, 0, false, new Write(Write.Kind.OPEN, DOMAIN, "republished", now + 5_000));
		assertThat(shorter.domains().get(0).untilMillis()).isEqualTo(now + 20_000);
		assertThat(shorter.domains().get(0).generation()).isEqualTo(opened.domains().get(0).generation());
		sync("a", 0, 0, false, new Write(Write.Kind.BREAKER, DOMAIN, "forced-open", 0));
		View forced = sync("b", 0, 0, false, new Write(Write.Kind.OPEN, DOMAIN, "republished", now + 60_000));
		assertThat(forced.domains().get(0).status()).isEqualTo("forced-open");
		// An operator's status sent again (a republish) changes no generation.
		View again = sync("b", 0, 0, false, new Write(Write.Kind.BREAKER, DOMAIN, "forced-open", 0));
		assertThat(again.domains().get(0).generation()).isEqualTo(forced.domains().get(0).generation());
	}

	@Test
	void aStoreThatLostItsKeysAnswersANewEpoch() {
		View first = sync("a", 0, 0, false);
		assertThat(first.epoch()).isNotEmpty();
		assertThat(sync("b", 0, 0, false).epoch()).isEqualTo(first.epoch());
		new ReactiveStringRedisTemplate(this.connection).keys("llm-resilience:{" + this.fleet.namespace + "}:*")
			.flatMap(new ReactiveStringRedisTemplate(this.connection)::delete)
			.blockLast(Duration.ofSeconds(5));
		assertThat(sync("a", 0, 0, false).epoch()).isNotEqualTo(first.epoch());
	}

	@Test
	void aTrialThatPassedWhileTheFleetHeldTheDomainClosedIsTold() {
		assertThat(sync("a", 0, 0, false).domains().get(0).trialMillis()).isZero();
		View view = sync("a", 0, 0, false, new Write(Write.Kind.TRIAL, DOMAIN, "ok", 0));
		assertThat(view.domains().get(0).status()).isEqualTo("closed");
		assertThat(view.domains().get(0).trialMillis()).isEqualTo(view.serverMillis());
	}

	private static Domain domain(boolean wants, boolean holds) {
		return new Domain(DOMAIN, BREAKER, Duration.ofSeconds(1), wants, holds, Duration.ofSeconds(10), -1, 0);
	}

	private static Sync sync(String pod, Duration liveness, Domain domain, List<Batch> batches) {
		return new Sync(pod, "one", "", -1, Duration.ofSeconds(30), liveness, List.of(domain), batches, List.of());
	}

	@Test
	void garbageLinesAreSkipped() {
		View view = RedisFleetStore
			.parse("now\t1000\nbogus\tline\nd\tdomain\topen\tnot-a-number\nh\tg\nseq\t3\nc\tchat\ta, ,b\n");
		assertThat(view.serverMillis()).isEqualTo(1000);
		assertThat(view.operation()).isEqualTo(3);
		assertThat(view.chains().get("chat")).containsExactly("a", "b");
		assertThat(view.domains()).isEmpty();
		assertThat(view.holds()).isEmpty();
	}

}
