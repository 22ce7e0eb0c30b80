package io.github.llmresilience.breaker;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.change.StateChange.Kind;
import io.github.llmresilience.change.StateChanges;
import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.test.ManualTime;
import io.github.resilience4j.circuitbreaker.CircuitBreaker.State;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.circuitbreaker.event.CircuitBreakerEvent;
import io.github.resilience4j.core.EventProcessor;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link Breakers} keeps one breaker per failure domain, shared by every target of the
 * domain and refused to targets that disagree on its settings, and publishes each of its
 * transitions once to the {@link StateChanges} listeners, stamped with the injected
 * clock: refused calls, late results and repeated operator actions publish nothing; a
 * reset publishes the close it causes and the reset itself.
 */
class BreakersTests {

	private static final String DOMAIN = "openai/gpt-4o/us";

	private static final Duration OPEN = Duration.ofSeconds(30);

	private static final BreakerSettings SETTINGS = new BreakerSettings(4, 4, 50, Duration.ofSeconds(10), 50, OPEN,
			Duration.ofMinutes(2), 1);

	private static final Function<Throwable, Verdict> CLASSIFY = (error) -> Verdict.of(Outcome.AVAILABILITY);

	private final ManualTime time = new ManualTime();

	private final List<StateChange> changes = new CopyOnWriteArrayList<>();

	private final CircuitBreakerRegistry registry = CircuitBreakerRegistry.ofDefaults();

	private final Breakers breakers = breakers(this.time, this.changes, this.registry);

	@Test
	void targetsOfOneFailureDomainShareOneBreaker() {
		Breaker first = this.breakers.forDomain(DOMAIN, SETTINGS, CLASSIFY);
		Breaker second = this.breakers.forDomain(DOMAIN, SETTINGS, CLASSIFY);
		assertThat(second).isSameAs(first);
		assertThat(this.breakers.get(DOMAIN)).isSameAs(first);
		assertThat(this.breakers.all()).containsExactly(first);
		assertThat(this.registry.getAllCircuitBreakers()).containsExactly(first.circuitBreaker());

		open(first);
		assertThat(second.state()).isEqualTo(State.OPEN);
		assertThat(second.tryAcquire()).isFalse();
	}

	@Test
	void eachFailureDomainHasItsOwnBreaker() {
		Breaker us = this.breakers.forDomain(DOMAIN, SETTINGS, CLASSIFY);
		Breaker eu = this.breakers.forDomain("openai/gpt-4o/eu", SETTINGS, CLASSIFY);
		assertThat(eu).isNotSameAs(us);
		assertThat(eu.domain()).isEqualTo("openai/gpt-4o/eu");
		open(us);
		assertThat(eu.state()).isEqualTo(State.CLOSED);
		assertThat(eu.isUsable()).isTrue();
		assertThat(this.breakers.all()).containsExactlyInAnyOrder(us, eu);
	}

	@Test
	void aFailureDomainSharedWithOtherSettingsIsRefused() {
		Breaker breaker = this.breakers.forDomain(DOMAIN, SETTINGS, CLASSIFY);
		BreakerSettings other = SETTINGS.withHalfOpenTimeout(Duration.ofMinutes(1));
		assertThatIllegalArgumentException().isThrownBy(() -> this.breakers.forDomain(DOMAIN, other, CLASSIFY))
			.withMessageStartingWith(
					"Failure domain '" + DOMAIN + "' is shared by targets with different breaker " + "settings: ")
			.withMessageContaining(SETTINGS.toString())
			.withMessageContaining(other.toString());
		assertThat(this.breakers.get(DOMAIN)).isSameAs(breaker);
		assertThat(breaker.settings()).isEqualTo(SETTINGS);
	}

	@Test
	void anUnknownDomainHasNoBreaker() {
		assertThat(this.breakers.get(DOMAIN)).isNull();
		assertThat(this.breakers.all()).isEmpty();
	}

	@Test
	void eachTransitionIsPublishedOnce() {
		Breaker breaker = this.breakers.forDomain(DOMAIN, SETTINGS, CLASSIFY);
		Instant openedAt = this.time.instant();
		open(breaker);
		for (int i = 0; i < 5; i++) {
			assertThat(breaker.tryAcquire()).isFalse();
			breaker.onFailure(1_000_000, Verdict.of(Outcome.AVAILABILITY), new IOException("late 503"));
		}
		assertThat(this.changes).singleElement().satisfies((change) -> {
			assertThat(change.kind()).isEqualTo(Kind.BREAKER_OPENED);
			assertThat(change.subject()).isEqualTo(DOMAIN);
			assertThat(change.at()).isEqualTo(openedAt);
			assertThat(change.until()).isEqualTo(openedAt.plus(OPEN));
			assertThat(change.detail()).startsWith("CLOSED -> OPEN (failure rate 100.0%");
		});

		this.time.advance(OPEN.plusMillis(1));
		assertThat(breaker.tryAcquire()).isTrue();
		assertThat(breaker.tryAcquire()).isFalse();
		breaker.onSuccess(Duration.ofSeconds(1).toNanos());
		assertThat(breaker.tryAcquire()).isTrue();
		breaker.onSuccess(Duration.ofSeconds(1).toNanos());

		assertThat(this.changes).extracting(StateChange::kind)
			.containsExactly(Kind.BREAKER_OPENED, Kind.BREAKER_HALF_OPEN, Kind.BREAKER_CLOSED);
		assertThat(this.changes.get(1).at()).isEqualTo(openedAt.plus(OPEN).plusMillis(1));
		assertThat(this.changes.get(1).until()).isNull();
		assertThat(this.changes.get(2).detail()).startsWith("HALF_OPEN -> CLOSED");
	}

	@Test
	void aTrialThatNeverReportsPublishesTheReopeningOnce() {
		Breaker breaker = this.breakers.forDomain(DOMAIN, SETTINGS.withHalfOpenTimeout(Duration.ofMinutes(1)),
				CLASSIFY);
		open(breaker);
		this.time.advance(OPEN.plusMillis(1));
		assertThat(breaker.tryAcquire()).isTrue();
		this.time.advance(Duration.ofMinutes(1));
		for (int i = 0; i < 3; i++) {
			assertThat(breaker.tryAcquire()).isFalse();
		}
		assertThat(this.changes).extracting(StateChange::kind)
			.containsExactly(Kind.BREAKER_OPENED, Kind.BREAKER_HALF_OPEN, Kind.BREAKER_OPENED);
		assertThat(this.changes.get(2).until()).isEqualTo(this.time.instant().plus(OPEN.multipliedBy(2)));
	}

	@Test
	void repeatingAnOperatorsTransitionPublishesNothingMore() {
		Breaker breaker = this.breakers.forDomain(DOMAIN, SETTINGS, CLASSIFY);
		breaker.circuitBreaker().transitionToClosedState();
		assertThat(this.changes).isEmpty();

		breaker.circuitBreaker().transitionToForcedOpenState();
		breaker.circuitBreaker().transitionToForcedOpenState();
		assertThat(this.changes).singleElement().satisfies((change) -> {
			assertThat(change.kind()).isEqualTo(Kind.BREAKER_FORCED_OPEN);
			assertThat(change.kind().makesUnusable()).isTrue();
			assertThat(change.until()).isNull();
		});

		breaker.circuitBreaker().transitionToClosedState();
		breaker.circuitBreaker().transitionToClosedState();
		assertThat(this.changes).extracting(StateChange::kind)
			.containsExactly(Kind.BREAKER_FORCED_OPEN, Kind.BREAKER_CLOSED);
	}

	@Test
	void disablingTheBreakerIsPublished() {
		Breaker breaker = this.breakers.forDomain(DOMAIN, SETTINGS, CLASSIFY);
		breaker.circuitBreaker().transitionToDisabledState();
		assertThat(this.changes).extracting(StateChange::kind).containsExactly(Kind.BREAKER_DISABLED);
	}

	@Test
	void aResetOfAnOpenBreakerPublishesItsCloseAndTheResetAndStartsTheOpenDurationOver() {
		Breaker breaker = this.breakers.forDomain(DOMAIN, SETTINGS, CLASSIFY);
		open(breaker);
		this.time.advance(OPEN.plusMillis(1));
		assertThat(breaker.tryAcquire()).isTrue();
		breaker.onFailure(1_000_000, Verdict.of(Outcome.AVAILABILITY), new IOException("503"));
		assertThat(breaker.availableAt()).isEqualTo(this.time.instant().plus(OPEN.multipliedBy(2)));
		this.changes.clear();

		breaker.circuitBreaker().reset();
		assertThat(this.changes).extracting(StateChange::kind).containsExactly(Kind.BREAKER_CLOSED, Kind.BREAKER_RESET);
		assertThat(this.changes.get(1).detail()).isEqualTo("window cleared");
		assertThat(breaker.circuitBreaker().getMetrics().getNumberOfBufferedCalls()).isZero();

		open(breaker);
		assertThat(breaker.availableAt()).isEqualTo(this.time.instant().plus(OPEN));
	}

	@Test
	void aResetOfAClosedBreakerPublishesTheResetOnly() {
		Breaker breaker = this.breakers.forDomain(DOMAIN, SETTINGS, CLASSIFY);
		breaker.circuitBreaker().reset();
		assertThat(this.changes).extracting(StateChange::kind).containsExactly(Kind.BREAKER_RESET);
	}

	@Test
	void onTheSystemClockAnOpeningIsStampedNowAndAvailableAfterItsOpenDuration() {
		Clock clock = Clock.systemUTC();
		List<StateChange> published = new CopyOnWriteArrayList<>();
		Breaker breaker = breakers(clock, published).forDomain(DOMAIN, SETTINGS, CLASSIFY);
		Instant before = clock.instant();
		open(breaker);
		Instant after = clock.instant();
		assertThat(published).singleElement().satisfies((change) -> {
			assertThat(change.kind()).isEqualTo(Kind.BREAKER_OPENED);
			assertThat(change.at()).isBetween(before, after);
			assertThat(change.until()).isAfter(change.at())
				.isBetween(before.plus(OPEN).minusMillis(1), after.plus(OPEN).plusMillis(1));
		});
	}

	@Test
	void registersNoConsumerOnResilience4jsPublisherSoThatNoSuccessBuildsAnEvent() {
		Breaker breaker = this.breakers.forDomain(DOMAIN, SETTINGS, CLASSIFY);
		open(breaker);
		breaker.reset();
		assertThat(breaker.tryAcquire()).isTrue();
		breaker.onSuccess(1_000_000);
		assertThat(this.changes).extracting(StateChange::kind)
			.containsExactly(Kind.BREAKER_OPENED, Kind.BREAKER_CLOSED, Kind.BREAKER_RESET);
		assertThat(((EventProcessor<?>) breaker.circuitBreaker().getEventPublisher()).hasConsumers()).isFalse();
	}

	@Test
	void resilience4jsOwnToolingStillHearsEveryCallAndChange() {
		Breaker breaker = this.breakers.forDomain(DOMAIN, SETTINGS, CLASSIFY);
		List<CircuitBreakerEvent.Type> heard = new CopyOnWriteArrayList<>();
		this.registry.circuitBreaker(DOMAIN).getEventPublisher().onEvent((event) -> heard.add(event.getEventType()));
		open(breaker);
		breaker.reset();
		assertThat(breaker.tryAcquire()).isTrue();
		breaker.onSuccess(1_000_000);
		assertThat(heard).contains(CircuitBreakerEvent.Type.STATE_TRANSITION, CircuitBreakerEvent.Type.RESET)
			.endsWith(CircuitBreakerEvent.Type.SUCCESS);
		assertThat(this.changes).extracting(StateChange::kind)
			.containsExactly(Kind.BREAKER_OPENED, Kind.BREAKER_CLOSED, Kind.BREAKER_RESET);
	}

	private static Breakers breakers(Clock clock, List<StateChange> changes) {
		return breakers(clock, changes, CircuitBreakerRegistry.ofDefaults());
	}

	private static Breakers breakers(Clock clock, List<StateChange> changes, CircuitBreakerRegistry registry) {
		StateChanges events = new StateChanges(clock);
		events.addListener(changes::add);
		return new Breakers(clock, events, registry);
	}

	private static void open(Breaker breaker) {
		for (int i = 0; i < 4; i++) {
			assertThat(breaker.tryAcquire()).isTrue();
			breaker.onFailure(1_000_000, Verdict.of(Outcome.AVAILABILITY), new IOException("503"));
		}
		assertThat(breaker.state()).isEqualTo(State.OPEN);
	}

}
