package io.github.llmresilience.data.redis;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.canary.CanarySettings;
import io.github.llmresilience.fleet.FleetSettings;
import io.github.llmresilience.state.FleetState;
import io.github.llmresilience.state.TargetState.BreakerState.Status;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The fleet's probe lease on the real Redis of {@code .ci/run} and the real clock: a
 * holder that dies frees it within the liveness, and pods whose own breakers open before
 * the fleet's take their trials one at a time.
 */
class FleetLeaseTests {

	static final String DOMAIN = "openai/gpt-4o/region-primary";

	/**
	 * Pod a wins the lease and dies before its trial (its process killed: it gives
	 * nothing back). Pod b takes the trial once a has not synced for the liveness (1 s),
	 * not when the 30 s lease runs out.
	 */
	@Test
	void aLeaseWhoseHolderDiedIsFreeWithinTheLiveness() {
		try (FleetPods fleet = FleetPods.onCiRedis()) {
			AtomicBoolean down = new AtomicBoolean(true);
			fleet.provider.script("primary",
					(n) -> down.get() ? Reply.json(503, FakeProvider.OPENAI_503) : Reply.ok(FakeProvider.OPENAI_OK));
			fleet.provider.always("secondary", Reply.ok(FakeProvider.OPENAI_OK));
			FleetSettings settings = new FleetSettings(fleet.namespace, Duration.ofMillis(300), Duration.ofSeconds(10),
					Duration.ofMillis(500), Duration.ofSeconds(30), Duration.ZERO, Duration.ofMillis(300));
			BreakerSettings breaker = new BreakerSettings(20, 4, 50, Duration.ofSeconds(10), 50, Duration.ofSeconds(1),
					Duration.ofMinutes(1), 1);
			FleetPods.Pod a = fleet.start("pod-a", Clock.systemUTC(), settings, breaker,
					(builder) -> builder.retry(FleetModeTests.ONE_ATTEMPT));
			FleetPods.Pod b = fleet.start("pod-b", Clock.systemUTC(), settings, breaker,
					(builder) -> builder.retry(FleetModeTests.ONE_ATTEMPT));
			for (int i = 0; i < 2; i++) {
				fleet.call(a);
				fleet.call(b);
			}
			await().atMost(Duration.ofSeconds(10))
				.until(() -> "open".equals(status(b)) && isFleetHeld(a) && isFleetHeld(b));
			down.set(false);
			// Only pod a asks for the trial, a call every 1.5 s (so that it would keep an
			// unused lease for two such gaps); it wins the lease.
			boolean granted = false;
			for (int i = 0; i < 10 && !granted; i++) {
				fleet.call(a);
				try {
					await().atMost(Duration.ofMillis(1500))
						.pollInterval(Duration.ofMillis(10))
						.until(() -> "pod-a".equals(prober(a)));
					granted = true;
				}
				catch (ConditionTimeoutException ex) {
					// Not yet: the next call asks again.
				}
			}
			assertThat(granted).isTrue();
			long died = System.nanoTime();
			a.close();
			await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(100)).until(() -> {
				fleet.call(b);
				return b.resilience().state().target("primary").breaker().status() == Status.CLOSED;
			});
			Duration healed = Duration.ofNanos(System.nanoTime() - died);
			System.out.printf("Lease holder killed: the domain healed on the other pod %d ms later (lease 30 s)%n",
					healed.toMillis());
			assertThat(healed).isLessThan(Duration.ofSeconds(10));
		}
	}

	/**
	 * Three pods whose own breakers open on their last calls while the fleet's rate, over
	 * a window of earlier successes, stays below the threshold: their canaries go one at
	 * a time (the fleet's lease), never three at the same instant.
	 */
	@Test
	void podsWhoseOwnBreakersOpenedProbeOneAtATime() {
		try (FleetPods fleet = FleetPods.onCiRedis()) {
			AtomicBoolean down = new AtomicBoolean(false);
			// Once every pod's breaker is open, only canaries reach the primary.
			AtomicBoolean open = new AtomicBoolean(false);
			List<Long> canaries = new CopyOnWriteArrayList<>();
			fleet.provider.script("primary", (n) -> {
				if (!down.get()) {
					return Reply.ok(FakeProvider.OPENAI_OK);
				}
				if (open.get()) {
					canaries.add(System.nanoTime());
					// The canary hangs until its own timeout.
					return Reply.hang();
				}
				return Reply.json(503, FakeProvider.OPENAI_503);
			});
			fleet.provider.always("secondary", Reply.ok(FakeProvider.OPENAI_OK));
			FleetSettings settings = new FleetSettings(fleet.namespace, Duration.ofMillis(100), Duration.ofSeconds(30),
					null, Duration.ofSeconds(30), Duration.ZERO, Duration.ofMillis(300));
			// Each pod judges its last 4 calls; the fleet judges 30 s.
			BreakerSettings breaker = new BreakerSettings(4, 4, 50, Duration.ofSeconds(10), 50, Duration.ofSeconds(1),
					Duration.ofMinutes(1), 1);
			CanarySettings canary = CanarySettings.of("Reply with OK").withTimeout(Duration.ofSeconds(1));
			List<FleetPods.Pod> pods = new ArrayList<>();
			for (int i = 1; i <= 3; i++) {
				pods.add(fleet.start("pod-" + i, Clock.systemUTC(), settings, breaker,
						(builder) -> builder.retry(FleetModeTests.ONE_ATTEMPT).canary(canary)));
			}
			for (int i = 0; i < 8; i++) {
				pods.forEach(fleet::call);
			}
			down.set(true);
			for (int i = 0; i < 4; i++) {
				pods.forEach(fleet::call);
			}
			await().atMost(Duration.ofSeconds(10))
				.until(() -> pods.stream()
					.allMatch((pod) -> pod.resilience().state().target("primary").breaker().status() != Status.CLOSED));
			open.set(true);
			assertThat(status(pods.get(0))).isEqualTo("closed");
			await().atMost(Duration.ofSeconds(15)).until(() -> canaries.size() >= 3);
			List<Long> gaps = new ArrayList<>();
			for (int i = 1; i < canaries.size(); i++) {
				gaps.add((canaries.get(i) - canaries.get(i - 1)) / 1_000_000);
			}
			System.out.printf("Canaries of three pods opened before the fleet: %d sent, ms between them %s%n",
					canaries.size(), gaps);
			// One at a time: the next goes only after the last one's timeout (1 s).
			assertThat(gaps).allSatisfy((gap) -> assertThat(gap).isGreaterThanOrEqualTo(900L));
		}
	}

	private static String status(FleetPods.Pod pod) {
		FleetState.Domain domain = pod.resilience().fleet().domains().get(DOMAIN);
		return (domain != null) ? domain.status() : "";
	}

	private static String prober(FleetPods.Pod pod) {
		FleetState.Domain domain = pod.resilience().fleet().domains().get(DOMAIN);
		return (domain != null) ? domain.prober() : "";
	}

	private static boolean isFleetHeld(FleetPods.Pod pod) {
		return pod.resilience().state().target("primary").breaker().status() != Status.CLOSED;
	}

}
