package io.github.llmresilience.data.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.github.llmresilience.state.TargetState.BreakerState.Status;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Fleet mode on the topologies an application runs, in containers (Testcontainers), each
 * pod a Boot application whose connection Boot makes from its own
 * {@code spring.data.redis.sentinel.*} or {@code cluster.*} settings: Redis's primary
 * lost while four pods serve a provider outage. No call fails because of Redis, and the
 * pods follow the promotion: they sync with the new primary and heal together through it.
 */
class FleetTopologyTests {

	@Test
	void podsFollowASentinelPromotionWhileServingAnOutage() {
		try (RedisSentinelContainers sentinel = RedisSentinelContainers.launch();
				FleetPods fleet = new FleetPods("127.0.0.1", sentinel.replicaPort);
				BootPods boot = new BootPods(fleet,
						"spring.data.redis.sentinel.master=" + RedisSentinelContainers.MASTER,
						"spring.data.redis.sentinel.nodes=" + sentinel.nodes())) {
			servesAnOutageWhileThePrimaryGoes("Sentinel", fleet, boot, () -> {
				sentinel.killPrimary();
				await().atMost(Duration.ofSeconds(60))
					.until(() -> sentinel.primaryNow() == sentinel.replicaPort
							&& sentinel.isPrimary(sentinel.replicaPort));
			});
		}
	}

	@Test
	void podsOnAClusterServeWhileThePrimaryOfTheirSlotStops() throws Exception {
		try (RedisClusterContainers cluster = RedisClusterContainers.launch();
				FleetPods fleet = new FleetPods("127.0.0.1", cluster.ports.get(0));
				BootPods boot = new BootPods(fleet, "spring.data.redis.cluster.nodes=" + cluster.nodes(),
						"spring.data.redis.lettuce.cluster.refresh.adaptive=true",
						"spring.data.redis.lettuce.cluster.refresh.period=1s")) {
			// Every key of the namespace is in this key's slot (one hash tag).
			String key = "llm-resilience:{" + fleet.namespace + "}:epoch";
			int primary = cluster.primaryOf(key);
			servesAnOutageWhileThePrimaryGoes("Cluster", fleet, boot, () -> {
				cluster.stop(primary);
				List<Integer> running = new ArrayList<>(cluster.ports);
				running.remove(Integer.valueOf(primary));
				try {
					await().atMost(Duration.ofSeconds(120))
						.until(() -> cluster.ok(running) && cluster.primaryOf(key) != primary);
				}
				catch (org.awaitility.core.ConditionTimeoutException ex) {
					throw new AssertionError(
							"No replica took the slot over from " + primary + ":\n" + cluster.describe(running), ex);
				}
			});
		}
	}

	/**
	 * Four pods serve an outage of {@code primary} (the fleet holds it open); the primary
	 * Redis goes; the pods serve on, sync with the promoted server, and close the domain
	 * together through it once the provider heals.
	 */
	private static void servesAnOutageWhileThePrimaryGoes(String topology, FleetPods fleet, BootPods boot,
			Runnable lose) {
		fleet.provider.always("primary", Reply.json(503, FakeProvider.OPENAI_503));
		fleet.provider.always("secondary", Reply.ok(FakeProvider.OPENAI_OK));
		List<FleetPods.Pod> pods = new ArrayList<>();
		for (int i = 1; i <= 4; i++) {
			pods.add(boot.start("pod-" + i));
		}
		await().atMost(Duration.ofSeconds(30))
			.until(() -> pods.stream().allMatch((pod) -> pod.resilience().fleet().connected()));
		try (FleetLoad load = new FleetLoad(fleet, pods, Duration.ofMillis(100))) {
			await().atMost(Duration.ofSeconds(30))
				.until(() -> pods.stream()
					.allMatch((pod) -> pod.resilience()
						.fleet()
						.domains()
						.values()
						.stream()
						.anyMatch((domain) -> "open".equals(domain.status()))));
			long before = System.currentTimeMillis();
			lose.run();
			Instant promoted = Instant.now();
			// Every pod syncs again, with the promoted server (the old one is gone).
			await().atMost(Duration.ofSeconds(60))
				.until(() -> pods.stream()
					.allMatch(
							(pod) -> pod.resilience().fleet().connected() && pod.resilience().fleet().lastSync() != null
									&& pod.resilience().fleet().lastSync().isAfter(promoted)));
			long after = System.currentTimeMillis();
			assertThat(pods).allSatisfy((pod) -> assertThat(boot.health(pod).getStatus().getCode()).isEqualTo("UP"));
			// The provider heals: one pod's trial closes the domain on every pod, through
			// the promoted server.
			fleet.provider.always("primary", Reply.ok(FakeProvider.OPENAI_OK));
			await().atMost(Duration.ofSeconds(60))
				.until(() -> pods.stream()
					.allMatch((pod) -> pod.resilience().state().target("primary").breaker().status() == Status.CLOSED));
			load.finish();
			long[] longest = load.longest(before, after);
			System.out.printf(
					"%s, primary lost: promoted after %d ms; %d calls while it was away, %d served, %d unavailable,"
							+ " %d failed otherwise; longest call %d ms (%d ms after the loss; median %d ms);"
							+ " every pod synced with the new primary %d ms after it was promoted%n",
					topology, promoted.toEpochMilli() - before, load.count(before, after), load.served.get(),
					load.unavailable.get(), load.unexpected.size(), longest[1] / 1000, longest[0] - before,
					load.medianMicros(before, after) / 1000, after - promoted.toEpochMilli());
			assertThat(load.unexpected).isEmpty();
			assertThat(load.unavailable.get()).isZero();
			assertThat(load.count(before, after)).isPositive();
		}
	}

}
