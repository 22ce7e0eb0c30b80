package io.github.llmresilience.data.redis;

import java.time.Duration;
import java.util.List;

import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.fleet.FleetSettings;
import io.github.llmresilience.fleet.FleetStore.DomainCounts;
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
		this.store = new RedisFleetStore(new ReactiveStringRedisTemplate(this.connection), this.fleet.namespace,
				Duration.ofSeconds(2));
	}

	@AfterEach
	void close() {
		this.connection.destroy();
		this.fleet.close();
	}

	View sync(String pod, long calls, long failures, boolean wantsProbe, Write... writes) {
		return this.store.sync(new Sync(pod, -1, Duration.ofSeconds(30), List.of(new DomainCounts(DOMAIN, calls,
				failures, 0, BREAKER, Duration.ofSeconds(1), wantsProbe, Duration.ofSeconds(10))), List.of(writes)));
	}

	View spend(String pod, long window, long calls, double spend) {
		return this.store.sync(new Sync(pod, -1, Duration.ofSeconds(30), List.of(new DomainCounts(DOMAIN, 0, 0, 0,
				BREAKER, null, false, Duration.ofSeconds(10), window, 60_000, calls, spend)), List.of()));
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
		sync("a", 0, 0, false, new Write(Write.Kind.GATE, "acct/gpt-4o", "rate limited", 20_000));
		View view = sync("b", 0, 0, false, new Write(Write.Kind.GATE, "acct/gpt-4o", "rate limited", 5_000));
		assertThat(view.holds()).singleElement().satisfies((hold) -> {
			assertThat(hold.kind()).isEqualTo(Write.Kind.GATE);
			assertThat(hold.untilMillis() - view.serverMillis()).isBetween(15_000L, 20_000L);
		});
		View lifted = sync("b", 0, 0, false, new Write(Write.Kind.RELEASE, "acct/gpt-4o", "", 0));
		assertThat(lifted.holds()).isEmpty();
		View later = this.store.sync(new Sync("c", 0, Duration.ofSeconds(30), List.of(), List.of()));
		assertThat(later.operations()).singleElement()
			.satisfies((operation) -> assertThat(operation.kind()).isEqualTo(Write.Kind.RELEASE));
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
