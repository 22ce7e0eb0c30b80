package io.github.llmresilience.sample;

import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.llmresilience.sample.drill.BrownoutDrill;
import io.github.llmresilience.sample.drill.BrownoutDrillPlan;
import io.github.llmresilience.sample.drill.BrownoutDrillReport;
import io.github.llmresilience.sample.drill.TailDrill;
import io.github.llmresilience.sample.drill.TailDrillPlan;
import io.github.llmresilience.sample.drill.TailDrillReport;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The brownout and tail drills, small and fast (the simulator's latencies a tenth of real
 * ones, the drills' durations a tenth too), with overload control and hedging on, as
 * {@code --overload-control=on} and {@code --hedging=on} set them, against the simulator
 * over real HTTP: each prints its line of figures, the figures are sane, and the
 * mechanisms act (limits keep the overload answers few and the calls served, hedges win
 * first tokens). With them off the drills run on the engine every other drill test
 * covers; the side-by-side figures are the real-time runs in docs/overload.md.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE,
		properties = { "sample.simulator.latency-scale=0.1", "llm.resilience.concurrency.enabled=true",
				"llm.resilience.client-throttling.enabled=true", "llm.resilience.hedging.enabled=true",
				// Normal first tokens come in about 32 ms, slow ones in 320 ms: hedge at
				// 100 ms (the measured p95 needs more streams than this short drill has).
				"llm.resilience.hedging.delay=100ms",
				// A hedge needs a whole first-token timeout left before the deadline, a
				// tenth of the real drill's 20 s here.
				"llm.resilience.timeouts.first-token=1s" })
@ActiveProfiles("drill")
class OverloadDrillTests {

	private static final Pattern BROWNOUT = Pattern.compile(
			"Served (\\d+) of (\\d+); p50/p99 latency (\\d+)/(\\d+) ms; provider requests (\\d+); overloaded answers (\\d+)");

	private static final Pattern TAIL = Pattern.compile(
			"p50/p99 time to first token (\\d+)/(\\d+) ms; extra requests (-?\\d+(\\.\\d+)?) %; hedges won (\\d+)");

	private static final int SIMULATOR_PORT = TestPorts.free();

	@DynamicPropertySource
	static void simulatorPort(DynamicPropertyRegistry registry) {
		registry.add("sample.simulator.port", () -> SIMULATOR_PORT);
	}

	@Autowired
	private BrownoutDrill brownout;

	@Autowired
	private TailDrill tail;

	/**
	 * Primary serving 2 at once (secondary 4), the load ramping to 6 calls in flight
	 * (about 70 a second at a tenth of the real latency) over 3 s and holding 2 s: about
	 * 240 calls.
	 */
	@Test
	void withOverloadControlTheBrownoutDrillServesNearlyEveryCall() {
		BrownoutDrillPlan plan = BrownoutDrillPlan.of(2, Duration.ofSeconds(20)).scaled(0.1);
		BrownoutDrillReport report = this.brownout.run(plan);
		List<String> lines = report.lines();
		lines.forEach(System.out::println);

		assertThat(lines).hasSize(3);
		assertThat(lines.get(0)).contains("overload control: llm.resilience.concurrency.enabled=true, "
				+ "llm.resilience.client-throttling.enabled=true");
		assertThat(lines).filteredOn((line) -> BROWNOUT.matcher(line).matches()).hasSize(1);
		Matcher figures = BROWNOUT.matcher(lines.get(1));
		assertThat(figures.matches()).isTrue();
		long served = Long.parseLong(figures.group(1));
		long calls = Long.parseLong(figures.group(2));
		long p50 = Long.parseLong(figures.group(3));
		long p99 = Long.parseLong(figures.group(4));
		long requests = Long.parseLong(figures.group(5));
		long overloaded = Long.parseLong(figures.group(6));
		assertThat(calls).isBetween(150L, 350L);
		assertThat(served).isPositive().isLessThanOrEqualTo(calls);
		assertThat(p50).isPositive().isLessThanOrEqualTo(p99);
		assertThat(requests).isGreaterThanOrEqualTo(served);
		assertThat(overloaded).isLessThanOrEqualTo(requests);
		// Calls over primary's limit go to secondary at once: nearly all are served
		// (162 of 174 in one run; without overload control, under half at real time).
		assertThat(served).isGreaterThanOrEqualTo(calls * 8 / 10);
	}

	/**
	 * 80 streams, one every 50 ms (a tenth of the real latency, not of the real pace:
	 * streams cost a shared machine more than plain calls), primary slowing 5 % of its
	 * first tokens ten times (normal ones about 32 ms, slow ones about 320 ms).
	 */
	@Test
	void withHedgingTheTailDrillsSlowFirstTokensAreWonByHedges() {
		TailDrillPlan plan = new TailDrillPlan(5, 80, Duration.ofMillis(50), 0.1, Duration.ofSeconds(2));
		TailDrillReport report = this.tail.run(plan);
		List<String> lines = report.lines();
		lines.forEach(System.out::println);

		assertThat(lines).hasSize(2);
		assertThat(lines.get(0)).contains("hedging: llm.resilience.hedging.enabled=true");
		assertThat(lines).filteredOn((line) -> TAIL.matcher(line).matches()).hasSize(1);
		Matcher figures = TAIL.matcher(lines.get(1));
		assertThat(figures.matches()).isTrue();
		long p50 = Long.parseLong(figures.group(1));
		long p99 = Long.parseLong(figures.group(2));
		double extra = Double.parseDouble(figures.group(3));
		long won = Long.parseLong(figures.group(5));
		assertThat(p50).isPositive().isLessThanOrEqualTo(p99);
		// Every call reached a provider at least once.
		assertThat(extra).isGreaterThanOrEqualTo(0);
		assertThat(report.providerRequests()).isGreaterThanOrEqualTo(plan.calls());
		// About 4 of 80 first tokens are slow; the budget (5 %, at least 1 per 10 s)
		// allows a few hedges, and a hedge at 100 ms beats a first token at 320 ms.
		assertThat(won).isPositive();
		assertThat(extra).isLessThanOrEqualTo(15);
	}

}
