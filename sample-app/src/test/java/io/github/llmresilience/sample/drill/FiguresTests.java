package io.github.llmresilience.sample.drill;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The drills' percentiles: nearest rank, as the figures lines print them. */
class FiguresTests {

	@Test
	void percentilesAreNearestRank() {
		List<Duration> durations = List.of(Duration.ofMillis(3), Duration.ofMillis(1), Duration.ofMillis(2),
				Duration.ofMillis(4));

		assertThat(Figures.percentile(durations, 50)).isEqualTo(Duration.ofMillis(2));
		assertThat(Figures.percentile(durations, 99)).isEqualTo(Duration.ofMillis(4));
		assertThat(Figures.percentile(List.of(), 99)).isEqualTo(Duration.ZERO);
	}

}
