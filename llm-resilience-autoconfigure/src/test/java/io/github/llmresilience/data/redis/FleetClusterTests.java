package io.github.llmresilience.data.redis;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.execute.LlmUnavailableException;
import io.github.llmresilience.fleet.FleetSettings;
import io.github.llmresilience.state.TargetState.BreakerState.Status;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Fleet mode on a Redis Cluster of three masters (each with a replica, in containers):
 * the namespace's hash tag keeps every key in one slot, so the sync script runs there;
 * pub/sub hints cross the nodes.
 */
class FleetClusterTests {

	@Test
	void podsOnAClusterOpenTogetherAndShareAGate() throws IOException, InterruptedException {
		try (RedisClusterNodes cluster = RedisClusterProcesses.launchAny();
				FleetPods fleet = new FleetPods("127.0.0.1", cluster.ports().get(0), cluster::configuration)) {
			fleet.provider.always("primary", Reply.json(503, FakeProvider.OPENAI_503));
			fleet.provider.script("secondary",
					(n) -> (n == 1) ? Reply.json(429, Map.of("retry-after", "60"), FleetModeTests.RATE_LIMITED)
							: Reply.ok(FakeProvider.OPENAI_OK));
			FleetSettings settings = new FleetSettings(fleet.namespace, Duration.ofMillis(100), Duration.ofSeconds(5),
					null, Duration.ofSeconds(5), Duration.ZERO, Duration.ofSeconds(1));
			BreakerSettings breaker = new BreakerSettings(20, 4, 50, Duration.ofSeconds(10), 50, Duration.ofSeconds(30),
					Duration.ofMinutes(15), 1);
			List<FleetPods.Pod> pods = new ArrayList<>();
			for (int i = 1; i <= 4; i++) {
				pods.add(fleet.start("pod-" + i, Clock.systemUTC(), settings, breaker,
						(builder) -> builder.retry(FleetModeTests.ONE_ATTEMPT)));
			}
			assertThat(pods).allSatisfy((pod) -> assertThat(pod.resilience().fleet().connected()).isTrue());
			// Pod 1: the primary fails, the secondary answers 429: its scope is gated for
			// all.
			call(fleet, pods.get(0));
			await().atMost(Duration.ofSeconds(10))
				.until(() -> pods.stream()
					.allMatch((pod) -> pod.resilience().state().target("secondary").scope().gatedUntil() != null));
			// Pods 2 to 4: three more primary failures make the fleet's minimum of four.
			for (FleetPods.Pod pod : pods.subList(1, 4)) {
				call(fleet, pod);
			}
			await().atMost(Duration.ofSeconds(10))
				.until(() -> pods.stream()
					.allMatch((pod) -> pod.resilience().state().target("primary").breaker().status() == Status.OPEN));
			assertThat(fleet.provider.requests("primary")).isEqualTo(4);
			assertThat(fleet.provider.requests("secondary")).isEqualTo(1);
		}
	}

	/** A call that finds no target left (the secondary gated) is expected here. */
	private static void call(FleetPods fleet, FleetPods.Pod pod) {
		try {
			fleet.call(pod);
		}
		catch (LlmUnavailableException ex) {
			// The primary failed and the secondary is gated.
		}
	}

}
