package io.github.llmresilience.data.redis;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.fleet.FleetSettings;
import io.github.llmresilience.state.TargetState.BreakerState.Status;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Redis killed, restarted empty, paused and slowed under a fleet in an outage: no call
 * fails because of Redis, the pods say they are disconnected, and the fleet's state
 * converges when Redis is back.
 */
class FleetFaultTests {

	@Test
	void noCallFailsBecauseOfRedisAndTheFleetConvergesWhenItReturns() {
		try (RedisProcess redis = RedisProcess.launch(); FleetPods fleet = new FleetPods("127.0.0.1", redis.port)) {
			fleet.provider.always("primary", Reply.json(503, FakeProvider.OPENAI_503));
			fleet.provider.always("secondary", Reply.ok(FakeProvider.OPENAI_OK));
			FleetSettings settings = new FleetSettings(fleet.namespace, Duration.ofMillis(100), Duration.ofSeconds(5),
					Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ZERO, Duration.ofMillis(300));
			BreakerSettings breaker = new BreakerSettings(20, 5, 50, Duration.ofSeconds(10), 50, Duration.ofSeconds(30),
					Duration.ofMinutes(15), 1);
			List<FleetPods.Pod> pods = new ArrayList<>();
			for (int i = 1; i <= 5; i++) {
				pods.add(fleet.start("pod-" + i, Clock.systemUTC(), settings, breaker,
						(builder) -> builder.retry(FleetModeTests.ONE_ATTEMPT)));
			}
			try (FleetLoad load = new FleetLoad(fleet, pods, Duration.ofMillis(100))) {
				awaitOpen(pods);

				redis.kill();
				awaitConnected(pods, false);
				FleetLoad.runFor(Duration.ofSeconds(1));
				int whileDown = load.calls();
				redis.start();
				awaitConnected(pods, true);
				// The new Redis knows nothing: the pods' counts open the domain again.
				awaitOpen(pods);

				redis.pause(Duration.ofSeconds(2));
				awaitConnected(pods, false);
				awaitConnected(pods, true);

				redis.sleep(Duration.ofSeconds(2));
				awaitConnected(pods, false);
				awaitConnected(pods, true);
				awaitOpen(pods);

				System.out.printf("Calls: %d served, %d unavailable, %d failed otherwise (%d before the restart)%n",
						load.served.get(), load.unavailable.get(), load.unexpected.size(), whileDown);
				assertThat(load.unexpected).isEmpty();
				assertThat(load.unavailable.get()).isZero();
				assertThat(load.served.get()).isPositive();
			}
			assertThat(fleet.events).filteredOn((change) -> change.kind() == StateChange.Kind.FLEET_DISCONNECTED)
				.hasSizeGreaterThanOrEqualTo(3 * pods.size());
			assertThat(pods).allSatisfy((pod) -> assertThat(pod.resilience().fleet().connected()).isTrue());
		}
	}

	private static void awaitOpen(List<FleetPods.Pod> pods) {
		await().atMost(Duration.ofSeconds(15))
			.until(() -> pods.stream()
				.allMatch((pod) -> pod.resilience().state().target("primary").breaker().status() != Status.CLOSED));
	}

	private static void awaitConnected(List<FleetPods.Pod> pods, boolean connected) {
		await().atMost(Duration.ofSeconds(15))
			.until(() -> pods.stream().allMatch((pod) -> pod.resilience().fleet().connected() == connected));
	}

}
