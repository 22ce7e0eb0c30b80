package io.github.llmresilience.data.redis;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.classify.ClassificationRule;
import io.github.llmresilience.classify.ClassificationRules;
import io.github.llmresilience.fleet.FleetSettings;
import io.github.llmresilience.overload.ClientThrottlingSettings;
import io.github.llmresilience.state.FleetState;
import io.github.llmresilience.state.TargetState.BreakerState.Status;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A stalled, slow or emptied Redis under pods on the real clock, each on a
 * {@code redis-server} of the test's own: what the fleet counts is what the pods made,
 * ends are the ends the pods asked for, a pod starts while the server stalls, and what an
 * operator did outlives a store that lost its keys.
 */
class FleetStallTests {

	static final String DOMAIN = "openai/gpt-4o/region-primary";

	/** The fleet never opens by its counts here (minimum 1,000): the counts are read. */
	static final BreakerSettings COUNTING = new BreakerSettings(100, 1000, 50, Duration.ofSeconds(10), 50,
			Duration.ofSeconds(30), Duration.ofMinutes(15), 1);

	/** Sync every 100 ms, a minute's window, 300 ms per round trip, no jitter. */
	static FleetSettings settings(String namespace) {
		return new FleetSettings(namespace, Duration.ofMillis(100), Duration.ofMinutes(1), null, Duration.ofSeconds(30),
				Duration.ZERO, Duration.ofMillis(300));
	}

	/**
	 * Redis stopped (SIGSTOP) for 3 s while a pod keeps counting and syncing: every sync
	 * it sends meanwhile waits in the socket and runs when Redis resumes. The fleet
	 * counts each call once.
	 */
	@Test
	void aStalledStoreCountsEachCallOnce() {
		try (RedisProcess redis = RedisProcess.launch(); FleetPods fleet = new FleetPods("127.0.0.1", redis.port)) {
			fleet.provider.always("primary", Reply.json(503, FakeProvider.OPENAI_503));
			fleet.provider.always("secondary", Reply.ok(FakeProvider.OPENAI_OK));
			FleetPods.Pod pod = fleet.start("pod-1", Clock.systemUTC(), settings(fleet.namespace), COUNTING,
					(builder) -> builder.retry(FleetModeTests.ONE_ATTEMPT));
			FleetPods.Pod observer = fleet.start("observer", Clock.systemUTC(), settings(fleet.namespace), COUNTING);
			for (int i = 0; i < 4; i++) {
				fleet.call(pod);
			}
			awaitCounted(observer, 4);
			redis.stop();
			await().atMost(Duration.ofSeconds(10)).until(() -> !pod.resilience().fleet().connected());
			for (int i = 0; i < 4; i++) {
				fleet.call(pod);
			}
			FleetLoad.runFor(Duration.ofSeconds(3));
			redis.resume();
			await().atMost(Duration.ofSeconds(15)).until(() -> pod.resilience().fleet().connected());
			awaitCounted(observer, 8);
			// Whatever was queued has run by now; nothing more comes.
			FleetLoad.runFor(Duration.ofSeconds(1));
			FleetState.Domain counted = observer.resilience().fleet().domains().get(DOMAIN);
			System.out.printf("Stall of 3 s: 8 calls made (8 failures), %d counted (%d failures)%n", counted.calls(),
					counted.failures());
			assertThat(counted.calls()).isEqualTo(8);
			assertThat(counted.failures()).isEqualTo(8);
		}
	}

	/**
	 * Every answer of Redis 500 ms late for a pod that waits 300 ms: each of its syncs
	 * times out, runs anyway, and its answer arrives late. The fleet counts each call
	 * once, where re-sending what timed out counted it once per try.
	 */
	@Test
	void aStoreSlowerThanTheTimeoutCountsEachCallOnce() {
		try (RedisProcess redis = RedisProcess.launch();
				SlowProxy proxy = new SlowProxy(redis.port, Duration.ofMillis(500));
				FleetPods fleet = new FleetPods("127.0.0.1", redis.port)) {
			fleet.provider.always("primary", Reply.json(503, FakeProvider.OPENAI_503));
			fleet.provider.always("secondary", Reply.ok(FakeProvider.OPENAI_OK));
			// Every call is sent, so that the calls made are the fleet's count:
			// client-side
			// throttling would refuse most calls to the failing primary before sending.
			FleetPods.Pod slow = fleet.start("slow", Clock.systemUTC(), settings(fleet.namespace), COUNTING,
					(builder) -> builder.retry(FleetModeTests.ONE_ATTEMPT)
						.clientThrottling(ClientThrottlingSettings.defaults().withEnabled(false)),
					new RedisStandaloneConfiguration("127.0.0.1", proxy.port()));
			FleetPods.Pod observer = fleet.start("observer", Clock.systemUTC(), settings(fleet.namespace), COUNTING);
			int made;
			try (FleetLoad load = new FleetLoad(fleet, List.of(slow), Duration.ofMillis(100))) {
				FleetLoad.runFor(Duration.ofSeconds(3));
				load.finish();
				assertThat(load.unexpected).isEmpty();
				made = load.calls();
			}
			awaitCounted(observer, made);
			FleetLoad.runFor(Duration.ofSeconds(2));
			FleetState.Domain counted = observer.resilience().fleet().domains().get(DOMAIN);
			System.out.printf("Redis 500 ms late, timeout 300 ms: %d calls made, %d counted%n", made, counted.calls());
			assertThat(counted.calls()).isEqualTo(made);
			assertThat(slow.resilience().fleet().connected()).isFalse();
		}
	}

	/**
	 * A pod gated by a 4 s {@code retry-after} while Redis is stopped for 2 s: the
	 * fleet's gate ends when the provider said, not 2 s later.
	 */
	@Test
	void aGateSentThroughAStallEndsWhenTheProviderSaid() {
		try (RedisProcess redis = RedisProcess.launch(); FleetPods fleet = new FleetPods("127.0.0.1", redis.port)) {
			fleet.provider.always("primary", Reply.json(429, Map.of("retry-after", "4"), FleetModeTests.RATE_LIMITED));
			fleet.provider.always("secondary", Reply.ok(FakeProvider.OPENAI_OK));
			FleetPods.Pod pod = fleet.start("pod-1", Clock.systemUTC(), settings(fleet.namespace),
					BreakerSettings.defaults(), (builder) -> builder.retry(FleetModeTests.ONE_ATTEMPT));
			FleetPods.Pod observer = fleet.start("observer", Clock.systemUTC(), settings(fleet.namespace),
					BreakerSettings.defaults());
			redis.stop();
			await().atMost(Duration.ofSeconds(10)).until(() -> !pod.resilience().fleet().connected());
			fleet.call(pod);
			Instant asked = pod.resilience().state().target("primary").scope().gatedUntil();
			assertThat(asked).isAfter(Instant.now());
			FleetLoad.runFor(Duration.ofSeconds(2));
			redis.resume();
			Instant mirrored = await().atMost(Duration.ofSeconds(15))
				.until(() -> observer.resilience().state().target("primary").scope().gatedUntil(),
						(until) -> until != null && until.isAfter(Instant.now()));
			System.out.printf("Gate asked until %s, the fleet's ends at %s (%+d ms)%n", asked, mirrored,
					Duration.between(asked, mirrored).toMillis());
			// One machine, one clock: the store's end is the pod's, give or take the
			// offset measured over a round trip.
			assertThat(Duration.between(asked, mirrored).abs()).isLessThan(Duration.ofMillis(300));
		}
	}

	/**
	 * Redis stopped for 2 s while two pods wait for the trial of a domain the fleet holds
	 * open (the provider healed meanwhile): the syncs that asked for the lease run when
	 * it resumes, one wins it for a pod that stopped waiting for the answer. That pod is
	 * granted it again when it asks, so the domain heals at once rather than after the 30
	 * s lease.
	 */
	@Test
	void aLeaseWonByASyncThatRanAfterAStallIsUsed() {
		try (RedisProcess redis = RedisProcess.launch(); FleetPods fleet = new FleetPods("127.0.0.1", redis.port)) {
			AtomicBoolean down = new AtomicBoolean(true);
			fleet.provider.script("primary",
					(n) -> down.get() ? Reply.json(503, FakeProvider.OPENAI_503) : Reply.ok(FakeProvider.OPENAI_OK));
			fleet.provider.always("secondary", Reply.ok(FakeProvider.OPENAI_OK));
			FleetSettings settings = new FleetSettings(fleet.namespace, Duration.ofMillis(100), Duration.ofSeconds(10),
					Duration.ofSeconds(2), Duration.ofSeconds(30), Duration.ZERO, Duration.ofMillis(300));
			BreakerSettings breaker = new BreakerSettings(20, 4, 50, Duration.ofSeconds(10), 50, Duration.ofMinutes(1),
					Duration.ofMinutes(15), 1);
			List<FleetPods.Pod> pods = List.of(
					fleet.start("pod-a", Clock.systemUTC(), settings, breaker,
							(builder) -> builder.retry(FleetModeTests.ONE_ATTEMPT)),
					fleet.start("pod-b", Clock.systemUTC(), settings, breaker,
							(builder) -> builder.retry(FleetModeTests.ONE_ATTEMPT)));
			for (int i = 0; i < 2; i++) {
				pods.forEach(fleet::call);
			}
			await().atMost(Duration.ofSeconds(10))
				.until(() -> pods.stream()
					.allMatch((pod) -> pod.resilience().state().target("primary").breaker().status() == Status.OPEN));
			down.set(false);
			try (FleetLoad load = new FleetLoad(fleet, pods, Duration.ofMillis(50))) {
				// The fleet's open time (the 2 s probe interval) ends while Redis is
				// stopped: every sync asking for the lease waits in the socket.
				redis.stop();
				FleetLoad.runFor(Duration.ofSeconds(2));
				long resumed = System.nanoTime();
				redis.resume();
				await().atMost(Duration.ofSeconds(45))
					.until(() -> pods.stream()
						.allMatch((pod) -> pod.resilience().fleet().connected()
								&& "closed".equals(pod.resilience().fleet().domains().get(DOMAIN).status())));
				Duration healed = Duration.ofNanos(System.nanoTime() - resumed);
				System.out.printf(
						"Stall of 2 s over the fleet's trial: healed %d ms after Redis resumed (lease 30 s)%n",
						healed.toMillis());
				assertThat(load.unexpected).isEmpty();
				assertThat(healed).isLessThan(Duration.ofSeconds(10));
			}
		}
	}

	/**
	 * A pod built while Redis is stopped: the application starts within the command
	 * timeout, on its own state, and the pod joins the fleet when Redis resumes.
	 */
	@Test
	void aPodStartsWhileTheStoreStallsAndJoinsWhenItResumes() {
		try (RedisProcess redis = RedisProcess.launch(); FleetPods fleet = new FleetPods("127.0.0.1", redis.port)) {
			fleet.provider.always("primary", Reply.ok(FakeProvider.OPENAI_OK));
			fleet.provider.always("secondary", Reply.ok(FakeProvider.OPENAI_OK));
			FleetSettings settings = new FleetSettings(fleet.namespace, Duration.ofMillis(100), Duration.ofMinutes(1),
					null, Duration.ofSeconds(30), Duration.ZERO, Duration.ofSeconds(1));
			redis.stop();
			long start = System.nanoTime();
			FleetPods.Pod pod = fleet.start("late", Clock.systemUTC(), settings, BreakerSettings.defaults());
			Duration took = Duration.ofNanos(System.nanoTime() - start);
			System.out.printf("Started under a stopped Redis in %d ms (command timeout 1 s)%n", took.toMillis());
			assertThat(took).isLessThan(Duration.ofSeconds(5));
			assertThat(pod.resilience().fleet().connected()).isFalse();
			assertThat(fleet.call(pod)).isEqualTo(FakeProvider.OPENAI_OK);
			redis.resume();
			await().atMost(Duration.ofSeconds(20)).until(() -> pod.resilience().fleet().connected());
		}
	}

	/** How the store loses its keys. */
	enum Loss {

		/** {@code FLUSHALL}. */
		FLUSH,
		/** Killed and started again with nothing kept. */
		EMPTY_RESTART

	}

	/**
	 * An operator forced a domain open, edited the chain and the rules, and an account is
	 * parked; then Redis loses every key. The pods keep all of it, publish it again, and
	 * a pod started afterwards gets it from the store.
	 */
	@ParameterizedTest
	@EnumSource(Loss.class)
	void whatAnOperatorDidOutlivesAStoreThatLostItsKeys(Loss loss) {
		try (RedisProcess redis = RedisProcess.launch(); FleetPods fleet = new FleetPods("127.0.0.1", redis.port)) {
			AtomicBoolean quota = new AtomicBoolean(true);
			fleet.provider.always("primary", Reply.ok(FakeProvider.OPENAI_OK));
			fleet.provider.script("secondary", (n) -> quota.getAndSet(false)
					? Reply.json(429, FleetModeTests.INSUFFICIENT_QUOTA) : Reply.ok(FakeProvider.OPENAI_OK));
			FleetSettings settings = settings(fleet.namespace);
			FleetPods.Pod a = fleet.start("pod-a", Clock.systemUTC(), settings, BreakerSettings.defaults(),
					(builder) -> builder.retry(FleetModeTests.ONE_ATTEMPT));
			FleetPods.Pod b = fleet.start("pod-b", Clock.systemUTC(), settings, BreakerSettings.defaults(),
					(builder) -> builder.retry(FleetModeTests.ONE_ATTEMPT));
			a.resilience().operator().replaceChain("chat", List.of("secondary", "primary"));
			// The first call parks the secondary's account (insufficient quota) and is
			// served by the primary.
			assertThat(fleet.call(a)).isEqualTo(FakeProvider.OPENAI_OK);
			a.resilience().operator().forceOpen("primary");
			ClassificationRule rule = ClassificationRule.parse(null, "429", null, "engine is overloaded",
					"AVAILABILITY", null);
			a.resilience().classificationRules().add(null, rule, ClassificationRules.OPERATOR);
			await().atMost(Duration.ofSeconds(10)).until(() -> holdsEverything(b, rule));

			if (loss == Loss.FLUSH) {
				redis.flushAll();
			}
			else {
				redis.kill();
				redis.start();
			}
			// The pods go on syncing with the emptied store, and keep what they hold.
			await().during(Duration.ofSeconds(2))
				.atMost(Duration.ofSeconds(10))
				.until(() -> holdsEverything(a, rule) && holdsEverything(b, rule));
			FleetPods.Pod late = fleet.start("pod-late", Clock.systemUTC(), settings, BreakerSettings.defaults());
			await().atMost(Duration.ofSeconds(10)).until(() -> holdsEverything(late, rule));
		}
	}

	private static boolean holdsEverything(FleetPods.Pod pod, ClassificationRule rule) {
		var state = pod.resilience().state();
		return state.target("primary").breaker().status() == Status.FORCED_OPEN
				&& pod.resilience().state().chain("chat").targets().equals(List.of("secondary", "primary"))
				&& pod.resilience().classificationRules().rules().contains(rule)
				&& state.target("secondary").account().parkedUntil() != null
				&& state.target("secondary").account().parkedUntil().isAfter(Instant.now());
	}

	private static void awaitCounted(FleetPods.Pod observer, long calls) {
		await().atMost(Duration.ofSeconds(15)).until(() -> {
			FleetState.Domain domain = observer.resilience().fleet().domains().get(DOMAIN);
			return domain != null && domain.calls() >= calls;
		});
	}

}
