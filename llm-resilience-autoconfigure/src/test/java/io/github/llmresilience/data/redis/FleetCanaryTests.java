package io.github.llmresilience.data.redis;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.canary.CanarySettings;
import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.fleet.FleetSettings;
import io.github.llmresilience.state.TargetState.BreakerState.Status;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Canaries in fleet mode, on the real Redis of {@code .ci/run} and the real clock: when
 * the fleet's open time ends, the one pod granted the probe lease sends the canary (the
 * others send nothing), its outcome is the fleet's trial, and no call is needed for it.
 */
class FleetCanaryTests {

	/**
	 * Each pod alone never reaches the minimum of 6 calls; the fleet's 8 open the domain
	 * for both. Open 1 s.
	 */
	private static final BreakerSettings BREAKER = new BreakerSettings(20, 6, 50, Duration.ofSeconds(10), 50,
			Duration.ofSeconds(1), Duration.ofMinutes(1), 1);

	@Test
	void onlyThePodGrantedTheProbeLeaseSendsTheCanaryAndItsAnswerClosesTheDomainForAll() {
		try (FleetPods fleet = FleetPods.onCiRedis()) {
			AtomicBoolean down = new AtomicBoolean(true);
			fleet.provider.script("primary", (n) -> down.get() ? Reply.json(503, FakeProvider.OPENAI_503)
					: Reply.ok(FakeProvider.openAiAnswer("{\"ok\":true}")));
			fleet.provider.always("secondary", Reply.ok(FakeProvider.OPENAI_OK));
			FleetSettings settings = new FleetSettings(fleet.namespace, Duration.ofMillis(100), Duration.ofSeconds(10),
					null, Duration.ofSeconds(10), Duration.ZERO, Duration.ofSeconds(1));
			CanarySettings canary = CanarySettings.of("Reply with {\"ok\":true}").withJudge(CanarySettings.Judge.JSON);
			List<FleetPods.Pod> pods = List.of(
					fleet.start("pod-1", Clock.systemUTC(), settings, BREAKER,
							(builder) -> builder.retry(FleetModeTests.ONE_ATTEMPT).canary(canary)),
					fleet.start("pod-2", Clock.systemUTC(), settings, BREAKER,
							(builder) -> builder.retry(FleetModeTests.ONE_ATTEMPT).canary(canary)));
			for (int i = 0; i < 4; i++) {
				for (FleetPods.Pod pod : pods) {
					assertThat(fleet.call(pod)).isEqualTo(FakeProvider.OPENAI_OK);
				}
			}
			await().atMost(Duration.ofSeconds(10))
				.until(() -> pods.stream().allMatch((pod) -> status(pod) != Status.CLOSED));
			down.set(false);
			int before = fleet.provider.requests("primary");
			// No call from here on: the canaries alone bring the domain back.
			await().atMost(Duration.ofSeconds(15))
				.until(() -> pods.stream().allMatch((pod) -> status(pod) == Status.CLOSED));
			assertThat(fleet.provider.requests("primary") - before).isOne();
			List<StateChange> sent = fleet.events.stream()
				.filter((change) -> change.kind() == StateChange.Kind.BREAKER_HALF_OPEN)
				.toList();
			assertThat(sent).singleElement()
				.satisfies(
						(change) -> assertThat(change.detail()).contains("this pod probes for the fleet: canary sent"));
			assertThat(fleet.events).anySatisfy((change) -> assertThat(change.detail())
				.isEqualTo("HALF_OPEN -> CLOSED (canary: answer passed (json))"));
			assertThat(fleet.events)
				.anySatisfy((change) -> assertThat(change.detail()).contains("(fleet: trial succeeded)"));
		}
	}

	private static Status status(FleetPods.Pod pod) {
		return pod.resilience().state().target("primary").breaker().status();
	}

}
