package io.github.llmresilience.breaker;

import io.github.resilience4j.circuitbreaker.CircuitBreaker.State;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link SpendTrip} on its own: spend opens only a closed breaker the fleet does not
 * hold, and its opening is the one that says spend.
 */
class SpendTripTests {

	@Test
	void spendOpensAClosedBreakerTheFleetDoesNotHold() {
		assertThat(SpendTrip.mayOpen(State.CLOSED, false)).isTrue();
		assertThat(SpendTrip.mayOpen(State.CLOSED, true)).isFalse();
	}

	@ParameterizedTest
	@EnumSource(names = "CLOSED", mode = EnumSource.Mode.EXCLUDE)
	void anyOtherBreakerIsLeftAsItIs(State state) {
		assertThat(SpendTrip.mayOpen(state, false)).isFalse();
	}

	@Test
	void spendsOpeningSaysSpendAndNoOtherDoes() {
		Opening opening = SpendTrip.opening("4.0× the median");
		assertThat(opening.note()).isEqualTo("spend: 4.0× the median");
		assertThat(SpendTrip.opened(opening)).isTrue();
		assertThat(SpendTrip.opened(opening.told())).as("told, still spend's").isTrue();
		assertThat(SpendTrip.opened(Opening.noting(opening, "canary sent as the trial")))
			.as("a half-open trial keeps the opening's cause")
			.isTrue();
		assertThat(SpendTrip.opened(Opening.RATES)).isFalse();
		assertThat(SpendTrip.opened(Opening.of(Opening.Cause.FLEET, "fleet: 3 pods"))).isFalse();
		assertThat(SpendTrip.opened(null)).isFalse();
	}

}
