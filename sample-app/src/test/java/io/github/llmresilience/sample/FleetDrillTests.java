package io.github.llmresilience.sample;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.List;

import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.sample.drill.FleetDrill;
import io.github.llmresilience.sample.drill.FleetDrillPlan;
import io.github.llmresilience.sample.drill.FleetDrillReport;
import io.github.llmresilience.sample.drill.PoolsFleetDrill;
import io.github.llmresilience.sample.drill.PoolsFleetDrillPlan;
import io.github.llmresilience.sample.drill.PoolsFleetDrillReport;
import io.github.llmresilience.test.RedisContainers;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Import;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * The fleet drill, ten times faster ({@code --time-scale=0.1}: a 6 s outage, a 3 s fleet
 * window, a sync every 100 ms, a trial every 500 ms), in fleet mode against a Redis
 * container ({@code @ServiceConnection}) wherever Docker answers, as in CI, else against
 * {@code LLM_RESILIENCE_REDIS_URL} (those tests are skipped when there is none), and
 * without fleet mode.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE, properties = "sample.simulator.latency-scale=0.05")
@ActiveProfiles("drill")
@Import(FleetDrillTests.RedisContainerWhereDockerAnswers.class)
class FleetDrillTests {

	/**
	 * The sample's Redis container (as {@link TestSampleApplication}'s), where Docker
	 * answers. Imported, not annotated {@code @Configuration}: a nested configuration
	 * class would replace the application's, and the application's component scan (in
	 * {@code spring-boot:test-run}) would find it.
	 */
	@Conditional(DockerAnswers.class)
	static class RedisContainerWhereDockerAnswers {

		@Bean
		@ServiceConnection(name = "redis")
		GenericContainer<?> redisContainer() {
			return RedisContainers.standalone();
		}

	}

	static class DockerAnswers implements Condition {

		@Override
		public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
			return RedisContainers.dockerAvailable();
		}

	}

	private static final int SIMULATOR_PORT = TestPorts.free();

	@DynamicPropertySource
	static void simulatorPort(DynamicPropertyRegistry registry) {
		registry.add("sample.simulator.port", () -> SIMULATOR_PORT);
	}

	@Autowired
	private FleetDrill drill;

	@Autowired
	private PoolsFleetDrill poolsDrill;

	static void assumeRedis() {
		if (RedisContainers.dockerAvailable()) {
			// The container of RedisContainerWhereDockerAnswers.
			return;
		}
		URI uri = URI.create(System.getenv().getOrDefault("LLM_RESILIENCE_REDIS_URL", "redis://127.0.0.1:6379"));
		int port = (uri.getPort() > 0) ? uri.getPort() : 6379;
		assumeThat(reachable(uri.getHost(), port))
			.as("a Redis server at %s:%d (LLM_RESILIENCE_REDIS_URL)", uri.getHost(), port)
			.isTrue();
	}

	/**
	 * The design's fleet: 40 pods at 7.5 calls a (scaled) minute, the default breaker (10
	 * calls minimum). The fleet opens the domain during the outage after a fraction of
	 * the calls that a fleet of lone pods sends to the failing provider (300 in 6 s),
	 * lets few trials through while it is open, and serves from primary again after the
	 * outage (a pod that calls every 0.8 s keeps a lease it won until its next call).
	 */
	@Test
	void fortyPodsPrintTheFourFiguresOpenTheDomainTogetherAndRecover() {
		assumeRedis();
		FleetDrillPlan plan = FleetDrillPlan.of(40, 300, true).scaled(0.1);
		FleetDrillReport report = this.drill.run(plan);
		List<String> lines = report.lines();
		lines.forEach(System.out::println);

		assertThat(lines).anyMatch((line) -> line.matches("Calls that reached the provider during the outage: \\d+"))
			.anyMatch((line) -> line.matches("Breaker opened after \\d+(\\.\\d+)? s"))
			.anyMatch((line) -> line.matches("Trial requests while open: \\d+"))
			.anyMatch((line) -> line.matches("First call served after the provider recovered: \\d+(\\.\\d+)? s"));
		assertThat(report.openedAfter()).isNotNull().isLessThan(plan.outage());
		// At least the breaker's minimum; far fewer than the 300 calls the pods make in
		// the outage.
		assertThat(report.callsDuringOutage()).isBetween(10L, 150L);
		assertThat(report.trials()).isPositive()
			.isLessThanOrEqualTo(plan.outage().plus(plan.afterRecovery()).dividedBy(plan.probeInterval()) + 2);
		assertThat(report.firstServedAfterRecovery()).isNotNull().isLessThan(plan.afterRecovery());
		assertThat(report.failed()).isZero();
		assertThat(report.unavailable()).isZero();
	}

	/**
	 * Fewer pods, each calling every 160 ms (scaled): the fleet sends one trial at a time
	 * while open, and the first call after the provider recovered is served by it within
	 * a few probe intervals.
	 */
	@Test
	void theFleetProbesAndServesFromPrimaryAgainAfterTheOutage() {
		assumeRedis();
		FleetDrillPlan plan = FleetDrillPlan.of(8, 300, true).scaled(0.1);
		FleetDrillReport report = this.drill.run(plan);
		report.lines().forEach(System.out::println);

		assertThat(report.lines())
			.anyMatch((line) -> line.matches("First call served after the provider recovered: \\d+(\\.\\d+)? s"));
		assertThat(report.openedAfter()).isNotNull().isLessThan(plan.outage());
		assertThat(report.trials()).isPositive()
			.isLessThanOrEqualTo(plan.outage().plus(plan.afterRecovery()).dividedBy(plan.probeInterval()) + 2);
		assertThat(report.firstServedAfterRecovery()).isNotNull().isLessThan(plan.afterRecovery());
		assertThat(report.failed()).isZero();
	}

	@Test
	void withoutFleetModeNoBreakerOpensAndNoRedisIsNeeded() {
		// The design's arithmetic: 7.5 calls a minute a pod never reach minimum-calls
		// 10 in the outage.
		FleetDrillPlan scaled = FleetDrillPlan.of(40, 300, false).scaled(0.1);
		FleetDrillPlan plan = new FleetDrillPlan(scaled.pods(), scaled.callsPerMinute(), false, scaled.timeScale(),
				scaled.leadIn(), scaled.outage(), Duration.ofSeconds(2), scaled.window(), scaled.syncInterval(),
				scaled.probeInterval(), BreakerSettings.defaults());
		FleetDrillReport report = this.drill.run(plan);
		report.lines().forEach(System.out::println);

		assertThat(report.lines()).contains("Breaker opened after: never", "Trial requests while open: 0");
		assertThat(report.callsDuringOutage()).isGreaterThan(150);
		assertThat(report.firstServedAfterRecovery()).isNotNull();
	}

	/**
	 * The fleet pools drill at a quarter of real time (15 s; 10 pods, 80 % of the load on
	 * 2; one scope of 120 requests a scaled minute; leases of 1.25 s): leasing, the fleet
	 * uses far more of what the provider allowed than equal parts do, and neither sends
	 * the provider a request beyond its limit (the simulator's own count of 429s). Equal
	 * parts hold each busy pod to a tenth of the scope: its interactive calls run out of
	 * room while the idle pods' parts lie unused.
	 */
	@Test
	void leasingTheScopeUsesWhatEqualPartsLeaveIdleAndNeverExceedsTheLimit() {
		assumeRedis();
		PoolsFleetDrillReport equal = this.poolsDrill
			.run(PoolsFleetDrillPlan.of(PoolsFleetDrillPlan.Sharing.EQUAL, 10, 80, 120).scaled(0.25));
		equal.lines().forEach(System.out::println);
		PoolsFleetDrillReport leases = this.poolsDrill
			.run(PoolsFleetDrillPlan.of(PoolsFleetDrillPlan.Sharing.LEASES, 10, 80, 120).scaled(0.25));
		List<String> lines = leases.lines();
		lines.forEach(System.out::println);

		assertThat(lines).anyMatch((line) -> line.matches("Quota used: \\d+(\\.\\d+)? % of what the provider "
				+ "allowed; refused by the provider: \\d+; interactive served \\d+ of \\d+, rate limited \\d+; "
				+ "background served \\d+"));
		assertThat(leases.refused()).isZero();
		assertThat(equal.refused()).isZero();
		// A real-time run used 97 % (docs/pools.md); equal parts about half.
		assertThat(leases.quotaUsed()).isGreaterThanOrEqualTo(80).isGreaterThan(equal.quotaUsed() + 20);
		assertThat(leases.busyServed()).isGreaterThan(2 * equal.busyServed());
		assertThat(equal.interactiveRateLimited()).isPositive();
		assertThat(leases.interactiveFailed()).isZero();
		assertThat(leases.interactiveServed() + leases.interactiveRateLimited())
			.isEqualTo(leases.plan().interactiveCalls());
	}

	private static boolean reachable(String host, int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), 1000);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

}
