package io.github.llmresilience.data.redis;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.fleet.FleetSettings;
import io.github.llmresilience.pool.Capacity;
import io.github.llmresilience.pool.PartitionSettings;
import io.github.llmresilience.pool.PoolState;
import io.github.llmresilience.test.FakeProvider.Reply;
import io.github.llmresilience.test.FakeProvider;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Quota pools hold fleet-wide: each pod partitions an equal part of a scope's capacity,
 * by the number of pods the store counts alive, so the fleet together never takes more
 * than the provider grants; the buckets stay in each pod, so no call waits on Redis. A
 * pod that stops syncing drops out of the count after the counting window, and the others
 * take its part back.
 */
class FleetPoolsTests {

	private static final String SCOPE = "acct-primary/gpt-4o";

	/** 60 requests a minute for the primary's scope: interactive's 70 % is 42. */
	private static final PartitionSettings POOLS = new PartitionSettings(true, PartitionSettings.defaultPools(),
			Map.of(SCOPE, new Capacity(60, 0)), false);

	@Test
	void eachPodPartitionsItsPartOfTheScopesCapacity() {
		try (FleetPods fleet = FleetPods.onCiRedis()) {
			fleet.provider.always("primary", Reply.ok(FakeProvider.OPENAI_OK));
			FleetSettings settings = new FleetSettings(fleet.namespace, Duration.ofMillis(50), Duration.ofSeconds(2),
					null, Duration.ofSeconds(10), Duration.ZERO, Duration.ofSeconds(1));
			List<FleetPods.Pod> pods = List.of(
					fleet.start("pod-1", Clock.systemUTC(), settings, BreakerSettings.defaults(),
							(builder) -> builder.pools(POOLS)),
					fleet.start("pod-2", Clock.systemUTC(), settings, BreakerSettings.defaults(),
							(builder) -> builder.pools(POOLS)),
					fleet.start("pod-3", Clock.systemUTC(), settings, BreakerSettings.defaults(),
							(builder) -> builder.pools(POOLS)));
			pods.forEach((pod) -> assertThat(fleet.call(pod)).isEqualTo(FakeProvider.OPENAI_OK));

			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(pods).allSatisfy((pod) -> {
				PoolState.ScopePools scope = pod.resilience().pools().scopes().get(SCOPE);
				assertThat(scope.capacity()).isEqualTo(new Capacity(60, 0));
				assertThat(scope.pods()).isEqualTo(3);
				// 60 / 3 = 20 a pod; interactive 70 %, background 20 %, evaluation 10 %.
				assertThat(scope.pools().get("interactive").requestsPerMinute()).isEqualTo(14);
				assertThat(scope.pools().get("background").requestsPerMinute()).isEqualTo(4);
				assertThat(scope.pools().get("evaluation").requestsPerMinute()).isEqualTo(2);
			}));
			long fleetInteractive = pods.stream()
				.mapToLong((pod) -> pod.resilience()
					.pools()
					.scopes()
					.get(SCOPE)
					.pools()
					.get("interactive")
					.requestsPerMinute())
				.sum();
			assertThat(fleetInteractive).isLessThanOrEqualTo(42);

			// Two pods stop: after the counting window, the one left partitions it all.
			pods.get(1).close();
			pods.get(2).close();
			await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
				PoolState.ScopePools scope = pods.get(0).resilience().pools().scopes().get(SCOPE);
				assertThat(scope.pods()).isEqualTo(1);
				assertThat(scope.pools().get("interactive").requestsPerMinute()).isEqualTo(42);
			});
		}
	}

	@Test
	void aPodAloneTakesTheWholeCapacity() {
		try (FleetPods fleet = FleetPods.onCiRedis()) {
			fleet.provider.always("primary", Reply.ok(FakeProvider.OPENAI_OK));
			FleetPods.Pod pod = fleet.startAlone("alone", Clock.systemUTC(), BreakerSettings.defaults(),
					(builder) -> builder.pools(POOLS));
			assertThat(fleet.call(pod)).isEqualTo(FakeProvider.OPENAI_OK);
			PoolState.ScopePools scope = pod.resilience().pools().scopes().get(SCOPE);
			assertThat(scope.pods()).isEqualTo(1);
			assertThat(scope.pools().get("interactive").requestsPerMinute()).isEqualTo(42);
			// No token capacity configured or learned: that dimension is not partitioned.
			assertThat(scope.pools().get("interactive").tokensPerMinute()).isZero();
			assertThat(scope.tokensAvailable()).isEqualTo(-1);
		}
	}

}
