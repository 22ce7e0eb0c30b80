package io.github.llmresilience.data.redis;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

import io.github.llmresilience.actuate.LlmResilienceHealthIndicator;
import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.fleet.FleetSettings;
import io.github.llmresilience.state.TargetState.BreakerState.Status;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import io.github.llmresilience.test.RedisContainers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.boot.health.contributor.Health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The fault matrix, in containers: Redis paused, stopped and started empty, killed and
 * started empty, cut off its network, and out of memory, each while four pods serve a
 * provider outage and, while Redis is away, an operator on one pod lifts a park, edits a
 * chain and closes the healed provider's breaker. No call fails because of Redis and none
 * waits on it; every pod's health stays {@code UP} with {@code fleet: disconnected}; the
 * fleet converges once Redis is back, and nothing stale comes back afterwards (the close
 * is not undone by an opening from before, the park is not re-parked, the chain edit is
 * not reverted). The figures go to {@code target/fleet-fault-matrix.md} and
 * {@code docs/fleet.md}.
 */
class FleetFaultMatrixTests {

	private static final Map<FaultyRedis.Fault, String> ROWS = new ConcurrentSkipListMap<>();

	@ParameterizedTest
	@EnumSource(FaultyRedis.Fault.class)
	void podsServeThroughTheFaultAndConvergeAfterIt(FaultyRedis.Fault fault) {
		RedisContainers.assumeDocker();
		try (FaultyRedis redis = FaultyRedis.start(fault);
				FleetPods fleet = new FleetPods(redis.host(), redis.port())) {
			fleet.provider.always("primary", Reply.json(503, FakeProvider.OPENAI_503));
			fleet.provider.always("secondary", Reply.ok(FakeProvider.OPENAI_OK));
			fleet.provider.script("tertiary", (n) -> (n == 1) ? Reply.json(429, FleetModeTests.INSUFFICIENT_QUOTA)
					: Reply.ok(FakeProvider.OPENAI_OK));
			FleetSettings settings = new FleetSettings(fleet.namespace, Duration.ofMillis(100), Duration.ofSeconds(5),
					null, Duration.ofSeconds(5), Duration.ZERO, Duration.ofMillis(300));
			// An opening outlasts the test: only the operator's close ends it.
			BreakerSettings breaker = new BreakerSettings(20, 5, 50, Duration.ofSeconds(10), 50, Duration.ofMinutes(5),
					Duration.ofMinutes(15), 1);
			List<FleetPods.Pod> pods = new ArrayList<>();
			for (int i = 1; i <= 4; i++) {
				pods.add(fleet.start("pod-" + i, Clock.systemUTC(), settings, breaker,
						(builder) -> builder.retry(FleetModeTests.ONE_ATTEMPT)
							.target(fleet.target("tertiary"))
							.chain("side", "tertiary", "secondary")));
			}
			FleetPods.Pod operator = pods.get(0);
			awaitAll(pods, (pod) -> pod.resilience().fleet().connected());
			// The tertiary's account is parked for the fleet by one pod's call.
			fleet.call(operator, "side");
			awaitAll(pods, (pod) -> parked(pod));
			try (FleetLoad load = new FleetLoad(fleet, pods, Duration.ofMillis(100))) {
				long loadStart = System.currentTimeMillis();
				awaitAll(pods, (pod) -> pod.resilience().state().target("primary").breaker().status() == Status.OPEN);

				long faultStart = System.currentTimeMillis();
				fault.inject(redis);
				awaitAll(pods, (pod) -> !pod.resilience().fleet().connected());
				long disconnected = System.currentTimeMillis();
				assertThat(pods).allSatisfy((pod) -> {
					Health health = new LlmResilienceHealthIndicator(pod.resilience(),
							org.springframework.boot.health.contributor.Status.DOWN)
						.health();
					assertThat(health.getStatus().getCode()).isEqualTo("UP");
					assertThat(health.getDetails().get("fleet")).asString().contains("status=disconnected");
				});
				// While Redis is away: the provider heals, and an operator on one pod
				// lifts
				// the park, edits a chain and closes the breaker.
				fleet.provider.always("primary", Reply.ok(FakeProvider.OPENAI_OK));
				operator.resilience().operator().unpark("acct-tertiary");
				operator.resilience().operator().replaceChain("chat", List.of("secondary", "primary"));
				operator.resilience().operator().close("primary");
				FleetLoad.runFor(Duration.ofSeconds(2));

				long healed = System.currentTimeMillis();
				fault.heal(redis);
				awaitAll(pods, (pod) -> converged(pod));
				long converged = System.currentTimeMillis();
				// Nothing stale comes back: what converged stays.
				await().during(Duration.ofSeconds(3))
					.atMost(Duration.ofSeconds(15))
					.until(() -> pods.stream().allMatch(FleetFaultMatrixTests::converged));
				load.finish();

				long baseline = load.medianMicros(loadStart, faultStart);
				long[] longest = load.longest(faultStart, converged);
				long worst = longest[1];
				String row = String.format("| %s | %d | %d | %d | %d ms | %d ms (%s) | %d ms | %d ms |",
						fault.description, load.count(faultStart, converged), load.unavailable.get(),
						load.unexpected.size(), baseline / 1000, worst / 1000,
						(longest[0] < healed) ? "+" + (longest[0] - faultStart) + " ms into the fault"
								: "+" + (longest[0] - healed) + " ms after Redis returned",
						disconnected - faultStart, converged - healed);
				ROWS.put(fault, row);
				System.out.println(row);
				assertThat(load.unexpected).isEmpty();
				assertThat(load.unavailable.get()).isZero();
				assertThat(load.count(faultStart, converged)).isPositive();
				// No call waits on Redis: a call that did would wait a command timeout
				// (300 ms
				// here) or Lettuce's (5 s). Tolerant of a busy machine's pauses.
				assertThat(worst).isLessThan(Duration.ofMillis(2500).toNanos() / 1000);
			}
		}
	}

	private static boolean parked(FleetPods.Pod pod) {
		var account = pod.resilience().state().accounts().get("acct-tertiary");
		return account != null && account.parkedUntil() != null;
	}

	private static boolean converged(FleetPods.Pod pod) {
		var state = pod.resilience().state();
		return pod.resilience().fleet().connected() && !parked(pod)
				&& state.chains().get("chat").targets().equals(List.of("secondary", "primary"))
				&& state.target("primary").breaker().status() == Status.CLOSED;
	}

	private static void awaitAll(List<FleetPods.Pod> pods, java.util.function.Predicate<FleetPods.Pod> condition) {
		await().atMost(Duration.ofSeconds(30)).until(() -> pods.stream().allMatch(condition));
	}

	@AfterAll
	static void writeTable() throws IOException {
		if (ROWS.isEmpty()) {
			return;
		}
		List<String> lines = new ArrayList<>(List.of(
				"| fault | calls while Redis was away or catching up | unavailable | failed otherwise | median call before | longest call | to `fleet: disconnected` | Redis back to converged |",
				"|---|---|---|---|---|---|---|---|"));
		lines.addAll(ROWS.values());
		Path file = Path.of("target", "fleet-fault-matrix.md");
		Files.createDirectories(file.getParent());
		Files.write(file, lines);
	}

}
