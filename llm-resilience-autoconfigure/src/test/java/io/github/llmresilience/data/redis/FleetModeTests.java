package io.github.llmresilience.data.redis;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.classify.ClassificationRule;
import io.github.llmresilience.classify.ClassificationRules;
import io.github.llmresilience.fleet.FleetSettings;
import io.github.llmresilience.retry.RetrySettings;
import io.github.llmresilience.state.TargetState.BreakerState.Status;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Fleet mode against the real Redis of {@code .ci/run}: several {@link FleetPods pods} in
 * one JVM, each with its own connection, on the real clock (Redis counts on its own).
 */
class FleetModeTests {

	static final String RATE_LIMITED = "{\"error\":{\"message\":\"Rate limit reached for gpt-4o in organization "
			+ "org-fleet on requests per min (RPM): Limit 500, Used 500, Requested 1.\",\"type\":\"requests\","
			+ "\"param\":null,\"code\":\"rate_limit_exceeded\"}}";

	static final String INSUFFICIENT_QUOTA = "{\"error\":{\"message\":\"You exceeded your current quota, please "
			+ "check your plan and billing details.\",\"type\":\"insufficient_quota\",\"param\":null,"
			+ "\"code\":\"insufficient_quota\"}}";

	/** No retry of the same target: each call is one attempt per target, as counted. */
	static final RetrySettings ONE_ATTEMPT = new RetrySettings(1, Duration.ofMillis(500), Duration.ofSeconds(30), 0.1,
			Duration.ofSeconds(10), 3);

	/**
	 * The design's fleet, time scaled by ten: 40 pods at 7.5 calls a "minute" of 6 s each
	 * (a call every 800 ms), a 3 s window (30 s scaled), the default breaker (10 calls
	 * minimum, 50 %). Each pod sees under 4 calls per window and 7 to 8 in the whole
	 * outage: alone, no pod's breaker ever reaches its minimum; the fleet's does within a
	 * window and one sync interval.
	 */
	@Test
	void fortyPodsOpenTheDomainTogetherWhereLonePodsNeverDo() {
		Duration window = Duration.ofSeconds(3);
		Duration sync = Duration.ofMillis(100);
		Duration outage = Duration.ofSeconds(6);
		try (FleetPods fleet = FleetPods.onCiRedis()) {
			fleet.provider.always("primary", Reply.json(503, FakeProvider.OPENAI_503));
			fleet.provider.always("secondary", Reply.ok(FakeProvider.OPENAI_OK));
			FleetSettings settings = new FleetSettings(fleet.namespace, sync, window, null, Duration.ofSeconds(10),
					Duration.ZERO, Duration.ofSeconds(1));
			List<FleetPods.Pod> pods = new ArrayList<>();
			for (int i = 1; i <= 40; i++) {
				pods.add(fleet.start("pod-" + i, Clock.systemUTC(), settings, BreakerSettings.defaults(),
						(builder) -> builder.retry(ONE_ATTEMPT)));
			}
			Instant start = Instant.now();
			try (FleetLoad load = new FleetLoad(fleet, pods, Duration.ofMillis(800))) {
				FleetLoad.runFor(outage);
				assertThat(load.unexpected).isEmpty();
				assertThat(load.unavailable.get()).isZero();
			}
			List<StateChange> opened = fleet.events.stream()
				.filter((change) -> change.kind() == StateChange.Kind.BREAKER_OPENED)
				.toList();
			assertThat(opened).hasSize(40);
			Duration openedAfter = Duration.between(start, opened.get(0).at());
			assertThat(openedAfter).isLessThanOrEqualTo(window.plus(sync));
			assertThat(pods)
				.allSatisfy((pod) -> assertThat(pod.resilience().state().target("primary").breaker().status())
					.isIn(Status.OPEN, Status.HALF_OPEN));
			assertThat(pods.get(39).resilience().fleet().domains().get("openai/gpt-4o/region-primary"))
				.satisfies((domain) -> {
					assertThat(domain.status()).isEqualTo("open");
					assertThat(domain.reason()).startsWith("failure rate 100.0%").endsWith("calls across the fleet");
				});
			int reached = fleet.provider.requests("primary");
			System.out.printf("Fleet on: breaker opened after %d ms, %d requests reached the primary%n",
					openedAfter.toMillis(), reached);

			fleet.stopAll();
			fleet.events.clear();
			fleet.provider.resetCounts();
			List<FleetPods.Pod> alone = new ArrayList<>();
			for (int i = 1; i <= 40; i++) {
				alone.add(fleet.startAlone("alone-" + i, Clock.systemUTC(), BreakerSettings.defaults(),
						(builder) -> builder.retry(ONE_ATTEMPT)));
			}
			try (FleetLoad load = new FleetLoad(fleet, alone, Duration.ofMillis(800))) {
				FleetLoad.runFor(outage);
				assertThat(load.unexpected).isEmpty();
			}
			assertThat(fleet.events).noneMatch((change) -> change.kind() == StateChange.Kind.BREAKER_OPENED);
			System.out.printf("Fleet off: never opened, %d requests reached the primary (fleet on: %d)%n",
					fleet.provider.requests("primary"), reached);
			assertThat(fleet.provider.requests("primary")).isGreaterThan(4 * reached);
		}
	}

	/**
	 * While the domain is open, one pod at a time wins the probe lease: one trial per
	 * probe interval for the whole fleet, whatever the number of pods; when the provider
	 * is back, the first trial closes the domain on every pod.
	 */
	@Test
	void oneTrialPerProbeIntervalForTheWholeFleet() {
		Duration probeInterval = Duration.ofSeconds(1);
		try (FleetPods fleet = FleetPods.onCiRedis()) {
			List<Long> requestNanos = new CopyOnWriteArrayList<>();
			boolean[] down = { true };
			fleet.provider.script("primary", (n) -> {
				requestNanos.add(System.nanoTime());
				return down[0] ? Reply.json(503, FakeProvider.OPENAI_503) : Reply.ok(FakeProvider.OPENAI_OK);
			});
			fleet.provider.always("secondary", Reply.ok(FakeProvider.OPENAI_OK));
			FleetSettings settings = new FleetSettings(fleet.namespace, Duration.ofMillis(100), Duration.ofSeconds(3),
					probeInterval, Duration.ofSeconds(10), Duration.ZERO, Duration.ofSeconds(1));
			BreakerSettings breaker = new BreakerSettings(20, 5, 50, Duration.ofSeconds(10), 50, Duration.ofSeconds(30),
					Duration.ofMinutes(15), 1);
			List<FleetPods.Pod> pods = new ArrayList<>();
			for (int i = 1; i <= 20; i++) {
				pods.add(fleet.start("pod-" + i, Clock.systemUTC(), settings, breaker,
						(builder) -> builder.retry(ONE_ATTEMPT)));
			}
			try (FleetLoad load = new FleetLoad(fleet, pods, Duration.ofMillis(200))) {
				await().atMost(Duration.ofSeconds(10))
					.until(() -> pods.stream()
						.allMatch((pod) -> pod.resilience()
							.state()
							.target("primary")
							.breaker()
							.status() != Status.CLOSED));
				int beforeOpen = requestNanos.size();
				long openNanos = System.nanoTime();
				FleetLoad.runFor(Duration.ofSeconds(5));
				List<Long> trials = new ArrayList<>(requestNanos.subList(beforeOpen, requestNanos.size()));
				// Calls in flight when the domain opened end within the first interval.
				trials.removeIf((at) -> at - openNanos < probeInterval.toNanos() / 2);
				double elapsed = (System.nanoTime() - openNanos) / 1e9;
				System.out.printf("Open for %.1f s across 20 pods: %d trial requests%n", elapsed, trials.size());
				assertThat(trials).isNotEmpty();
				assertThat(trials.size()).isLessThanOrEqualTo((int) Math.ceil(elapsed / probeInterval.toSeconds()));
				for (int i = 1; i < trials.size(); i++) {
					assertThat(Duration.ofNanos(trials.get(i) - trials.get(i - 1)))
						.isGreaterThanOrEqualTo(probeInterval.minusMillis(50));
				}
				down[0] = false;
				long recovered = System.nanoTime();
				await().atMost(Duration.ofSeconds(10))
					.until(() -> pods.stream()
						.allMatch((pod) -> pod.resilience()
							.state()
							.target("primary")
							.breaker()
							.status() == Status.CLOSED));
				System.out.printf("Every pod closed %d ms after the provider recovered%n",
						(System.nanoTime() - recovered) / 1_000_000);
				assertThat(load.unexpected).isEmpty();
			}
		}
	}

	/**
	 * A 429 with {@code retry-after: 20} seen by one pod gates the quota scope on all:
	 * the other pods send it nothing for 20 s, then call it again.
	 */
	@Test
	void aRateLimitSeenByOnePodGatesTheScopeForEveryPod() {
		try (FleetPods fleet = FleetPods.onCiRedis()) {
			List<Long> requestNanos = new CopyOnWriteArrayList<>();
			fleet.provider.script("primary", (n) -> {
				requestNanos.add(System.nanoTime());
				return (n == 1) ? Reply.json(429, Map.of("retry-after", "20"), RATE_LIMITED)
						: Reply.ok(FakeProvider.OPENAI_OK);
			});
			fleet.provider.always("secondary", Reply.ok(FakeProvider.OPENAI_OK));
			FleetSettings settings = new FleetSettings(fleet.namespace, Duration.ofMillis(200), Duration.ofSeconds(30),
					null, Duration.ofSeconds(10), Duration.ofMillis(250), Duration.ofSeconds(1));
			List<FleetPods.Pod> pods = new ArrayList<>();
			for (int i = 1; i <= 40; i++) {
				pods.add(fleet.start("pod-" + i, Clock.systemUTC(), settings, BreakerSettings.defaults(),
						(builder) -> builder.retry(ONE_ATTEMPT)));
			}
			fleet.call(pods.get(0));
			long limited = requestNanos.get(0);
			await().atMost(Duration.ofSeconds(5))
				.until(() -> pods.stream()
					.allMatch((pod) -> pod.resilience().state().target("primary").scope().gatedUntil() != null));
			try (FleetLoad load = new FleetLoad(fleet, pods.subList(1, 40), Duration.ofSeconds(2))) {
				await().atMost(Duration.ofSeconds(40)).until(() -> requestNanos.size() > 1);
				assertThat(load.unexpected).isEmpty();
				assertThat(load.served.get()).isGreaterThan(300);
			}
			Duration quiet = Duration.ofNanos(requestNanos.get(1) - limited);
			System.out.printf("The scope got its next request %d ms after the 429 (retry-after: 20)%n",
					quiet.toMillis());
			assertThat(quiet).isGreaterThanOrEqualTo(Duration.ofSeconds(20));
			assertThat(quiet).isLessThan(Duration.ofSeconds(25));
		}
	}

	/**
	 * A gate learnt from the fleet ends up to {@code gate-jitter} later on each pod,
	 * drawn once: after 30 syncs six pods still end spread over the jitter, where drawing
	 * at every sync (the later end winning) brought them all to its maximum together.
	 */
	@Test
	void aMirroredGatesJitterStaysSpreadAcrossPodsSyncAfterSync() {
		try (FleetPods fleet = FleetPods.onCiRedis()) {
			fleet.provider.always("primary", Reply.json(429, Map.of("retry-after", "30"), RATE_LIMITED));
			fleet.provider.always("secondary", Reply.ok(FakeProvider.OPENAI_OK));
			FleetSettings settings = new FleetSettings(fleet.namespace, Duration.ofMillis(100), Duration.ofSeconds(30),
					null, Duration.ofSeconds(10), Duration.ofSeconds(2), Duration.ofSeconds(1));
			List<FleetPods.Pod> pods = new ArrayList<>();
			for (int i = 1; i <= 8; i++) {
				pods.add(fleet.start("pod-" + i, Clock.systemUTC(), settings, BreakerSettings.defaults(),
						(builder) -> builder.retry(ONE_ATTEMPT)));
			}
			long before = System.currentTimeMillis();
			fleet.call(pods.get(0));
			long after = System.currentTimeMillis();
			List<FleetPods.Pod> mirrors = pods.subList(1, 8);
			await().atMost(Duration.ofSeconds(5))
				.until(() -> mirrors.stream().allMatch((pod) -> gatedUntil(pod) != null));
			// 30 syncs of every pod.
			FleetLoad.runFor(Duration.ofSeconds(3));
			List<Long> ends = mirrors.stream().map((pod) -> gatedUntil(pod).toEpochMilli()).sorted().toList();
			// The gate ends 30 s after the 429, somewhere between these two.
			long earliest = before + 30_000;
			long latest = after + 30_000;
			System.out.printf("Gate jitter 2 s after 30 syncs: seven pods end %s ms after the gate%n",
					ends.stream().map((end) -> end - earliest).toList());
			// Seven draws of [0, 2 s) all within 300 ms of each other: 1 in 10,000.
			assertThat(ends.get(6) - ends.get(0)).isGreaterThan(300);
			assertThat(ends).allSatisfy((end) -> assertThat(end).isBetween(earliest - 50, latest + 2050));
		}
	}

	private static Instant gatedUntil(FleetPods.Pod pod) {
		Instant until = pod.resilience().state().target("primary").scope().gatedUntil();
		return (until != null && until.isAfter(Instant.now())) ? until : null;
	}

	/**
	 * A parked account is in the fleet's store with its expiry: pods started after every
	 * pod was stopped know it before their first call.
	 */
	@Test
	void aParkedAccountSurvivesTheRestartOfEveryPod() {
		try (FleetPods fleet = FleetPods.onCiRedis()) {
			fleet.provider.always("primary", Reply.json(429, INSUFFICIENT_QUOTA));
			fleet.provider.always("secondary", Reply.ok(FakeProvider.OPENAI_OK));
			FleetSettings settings = new FleetSettings(fleet.namespace, Duration.ofMillis(200), Duration.ofSeconds(30),
					null, Duration.ofSeconds(10), Duration.ZERO, Duration.ofSeconds(1));
			for (int i = 1; i <= 3; i++) {
				fleet.start("pod-" + i, Clock.systemUTC(), settings, BreakerSettings.defaults());
			}
			fleet.call(fleet.pods.get("pod-1"));
			assertThat(fleet.provider.requests("primary")).isEqualTo(1);
			await().atMost(Duration.ofSeconds(5))
				.until(() -> fleet.all()
					.stream()
					.allMatch((pod) -> pod.resilience().state().accounts().get("acct-primary").parkedUntil() != null));
			fleet.stopAll();
			List<FleetPods.Pod> restarted = new ArrayList<>();
			for (int i = 1; i <= 3; i++) {
				restarted
					.add(fleet.start("pod-" + i + "-new", Clock.systemUTC(), settings, BreakerSettings.defaults()));
			}
			for (FleetPods.Pod pod : restarted) {
				assertThat(pod.resilience().state().accounts().get("acct-primary").parkedUntil()).isNotNull();
				fleet.call(pod);
			}
			assertThat(fleet.provider.requests("primary")).isEqualTo(1);
		}
	}

	/** An operator's commands on one pod hold on every pod. */
	@Test
	void anOperatorsForceOpenOnPodOneHoldsOnPodForty() {
		try (FleetPods fleet = FleetPods.onCiRedis()) {
			fleet.provider.always("primary", Reply.ok(FakeProvider.OPENAI_OK));
			fleet.provider.always("secondary", Reply.ok(FakeProvider.OPENAI_OK));
			FleetSettings settings = new FleetSettings(fleet.namespace, Duration.ofMillis(200), Duration.ofSeconds(30),
					null, Duration.ofSeconds(10), Duration.ZERO, Duration.ofSeconds(1));
			List<FleetPods.Pod> pods = new ArrayList<>();
			for (int i = 1; i <= 40; i++) {
				pods.add(fleet.start("pod-" + i, Clock.systemUTC(), settings, BreakerSettings.defaults()));
			}
			FleetPods.Pod first = pods.get(0);
			FleetPods.Pod last = pods.get(39);
			first.resilience().operator().forceOpen("primary");
			await().atMost(Duration.ofSeconds(5))
				.until(() -> last.resilience().state().target("primary").breaker().status() == Status.FORCED_OPEN);
			fleet.call(last);
			assertThat(fleet.provider.requests("primary")).isZero();
			assertThat(fleet.provider.requests("secondary")).isEqualTo(1);
			// A pod started now learns it before its first call.
			FleetPods.Pod late = fleet.start("pod-41", Clock.systemUTC(), settings, BreakerSettings.defaults());
			assertThat(late.resilience().state().target("primary").breaker().status()).isEqualTo(Status.FORCED_OPEN);

			last.resilience().operator().close("primary");
			last.resilience().operator().replaceChain("chat", List.of("secondary"));
			await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
				assertThat(first.resilience().state().target("primary").breaker().status()).isEqualTo(Status.CLOSED);
				assertThat(first.resilience().state().chain("chat").targets()).containsExactly("secondary");
			});
		}
	}

	/** An operator's rule edit on one pod reaches every pod and outlives them all. */
	@Test
	void aClassificationRuleEditReachesEveryPodAndSurvivesRestarts() {
		try (FleetPods fleet = FleetPods.onCiRedis()) {
			FleetSettings settings = new FleetSettings(fleet.namespace, Duration.ofMillis(200), Duration.ofSeconds(30),
					null, Duration.ofSeconds(10), Duration.ZERO, Duration.ofSeconds(1));
			List<FleetPods.Pod> pods = new ArrayList<>();
			for (int i = 1; i <= 3; i++) {
				pods.add(fleet.start("pod-" + i, Clock.systemUTC(), settings, BreakerSettings.defaults()));
			}
			ClassificationRule rule = ClassificationRule.parse("openai", "429", "tokens", "Requested ~", "REQUEST",
					null);
			pods.get(0).resilience().classificationRules().add(null, rule, ClassificationRules.OPERATOR);
			await().atMost(Duration.ofSeconds(5))
				.until(() -> pods.stream()
					.allMatch((pod) -> pod.resilience().classificationRules().rules().equals(List.of(rule))));
			fleet.stopAll();
			FleetPods.Pod restarted = fleet.start("pod-4", Clock.systemUTC(), settings, BreakerSettings.defaults());
			assertThat(restarted.resilience().classificationRules().rules()).containsExactly(rule);
		}
	}

}
