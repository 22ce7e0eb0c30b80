package io.github.llmresilience.sample.drill;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The on/off flags of the brownout and tail drills become the library's properties on the
 * command line.
 */
class DrillFlagsTests {

	@Test
	void overloadControlSetsConcurrencyAndClientThrottling() {
		assertThat(DrillFlags.withProperties(new String[] { "--drill=brownout", "--overload-control=on" }))
			.containsExactly("--drill=brownout", "--overload-control=on", "--llm.resilience.concurrency.enabled=true",
					"--llm.resilience.client-throttling.enabled=true");
		assertThat(DrillFlags.withProperties(new String[] { "--overload-control=off" }))
			.contains("--llm.resilience.concurrency.enabled=false", "--llm.resilience.client-throttling.enabled=false");
	}

	@Test
	void hedgingSetsHedging() {
		assertThat(DrillFlags.withProperties(new String[] { "--drill=tail", "--hedging=on" }))
			.endsWith("--llm.resilience.hedging.enabled=true");
		assertThat(DrillFlags.withProperties(new String[] { "--hedging=off" }))
			.endsWith("--llm.resilience.hedging.enabled=false");
	}

	@Test
	void theBreakersBaselineIsWithoutClientThrottlingToo() {
		assertThat(DrillFlags.withProperties(new String[] { "--drill=outage", "--breaker=off" }))
			.containsExactly("--drill=outage", "--breaker=off", "--llm.resilience.client-throttling.enabled=false");
		assertThat(DrillFlags.withProperties(new String[] { "--drill=outage", "--breaker=on" }))
			.containsExactly("--drill=outage", "--breaker=on");
	}

	@Test
	void otherArgumentsAreLeftAsTheyAre() {
		assertThat(DrillFlags.withProperties(new String[] { "--drill=fleet", "--fleet=on" }))
			.containsExactly("--drill=fleet", "--fleet=on");
	}

	@Test
	void aSwitchIsOnOrOff() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> DrillFlags.withProperties(new String[] { "--hedging=yes" }))
			.withMessageContaining("--hedging must be on or off");
	}

}
