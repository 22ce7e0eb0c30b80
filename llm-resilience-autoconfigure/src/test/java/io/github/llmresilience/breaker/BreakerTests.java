package io.github.llmresilience.breaker;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

import io.github.llmresilience.change.StateChanges;
import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.test.ManualTime;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreaker.State;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@link Breaker} counts exactly what the verdict table says ({@code AVAILABILITY} and
 * {@code STREAM_INTERRUPTED} fail, {@code THROTTLED} succeeds, the rest is ignored),
 * judges slow calls and slow first tokens on their own thresholds, lets half-open trials
 * through only while one is free (a permit given back, or a trial ignored, frees it
 * again), opens again when a trial never reports within {@code half-open-timeout} on the
 * injected clock, and tells when it may let a call through: never a moment already past,
 * {@code null} when an operator holds it open.
 */
class BreakerTests {

	private static final String DOMAIN = "openai/gpt-4o/us";

	private static final Duration OPEN = Duration.ofSeconds(30);

	private static final Duration HALF_OPEN_TIMEOUT = Duration.ofMinutes(1);

	/**
	 * Four calls, 50 %, slow at 10 s (3 s to a first token), open 30 s to 2 min, one
	 * trial.
	 */
	private static final BreakerSettings SETTINGS = new BreakerSettings(4, 4, 50, Duration.ofSeconds(10), 50, OPEN,
			Duration.ofMinutes(2), 1)
		.withHalfOpenTimeout(HALF_OPEN_TIMEOUT);

	private final ManualTime time = new ManualTime();

	private final Breaker breaker = breaker(this.time, SETTINGS);

	@ParameterizedTest
	@EnumSource(names = { "AVAILABILITY", "STREAM_INTERRUPTED" })
	void providerFailuresCountAsFailures(Outcome outcome) {
		fail(outcome);
		assertThat(metrics().getNumberOfFailedCalls()).isOne();
		assertThat(metrics().getNumberOfBufferedCalls()).isOne();
	}

	@ParameterizedTest
	@EnumSource(names = { "THROTTLED", "SUCCESS" })
	void aThrottledAnswerCountsAsASuccess(Outcome outcome) {
		fail(outcome);
		assertThat(metrics().getNumberOfSuccessfulCalls()).isOne();
		assertThat(metrics().getNumberOfFailedCalls()).isZero();
	}

	@ParameterizedTest
	@EnumSource(names = { "REQUEST", "CONTENT_FILTER", "QUOTA", "CREDENTIAL" })
	void failuresThatSayNothingAboutTheProviderAreIgnored(Outcome outcome) {
		for (int i = 0; i < 20; i++) {
			fail(outcome);
		}
		assertThat(metrics().getNumberOfBufferedCalls()).isZero();
		assertThat(this.breaker.state()).isEqualTo(State.CLOSED);
	}

	@Test
	void anUnclassifiedExceptionIsJudgedByTheDomainsClassifier() {
		CircuitBreaker circuitBreaker = this.breaker.circuitBreaker();
		circuitBreaker.onError(1, TimeUnit.MILLISECONDS, new IOException("connection reset"));
		circuitBreaker.onError(1, TimeUnit.MILLISECONDS, new IllegalStateException("bad request"));
		assertThat(metrics().getNumberOfFailedCalls()).isOne();
		assertThat(metrics().getNumberOfBufferedCalls()).isOne();
	}

	@Test
	void failuresReachingTheThresholdOpenTheBreaker() {
		succeed(Duration.ofSeconds(1));
		fail(Outcome.AVAILABILITY);
		succeed(Duration.ofSeconds(1));
		assertThat(this.breaker.state()).isEqualTo(State.CLOSED);
		fail(Outcome.STREAM_INTERRUPTED);
		assertThat(this.breaker.state()).isEqualTo(State.OPEN);
		assertThat(this.breaker.tryAcquire()).isFalse();
	}

	@Test
	void failuresBelowTheThresholdKeepItClosed() {
		succeed(Duration.ofSeconds(1));
		succeed(Duration.ofSeconds(1));
		succeed(Duration.ofSeconds(1));
		fail(Outcome.AVAILABILITY);
		assertThat(this.breaker.state()).isEqualTo(State.CLOSED);
	}

	@Test
	void callsSlowerThanTheSlowCallDurationOpenTheBreaker() {
		succeed(Duration.ofSeconds(10));
		succeed(Duration.ofSeconds(1));
		succeed(Duration.ofSeconds(10).plusMillis(1));
		assertThat(metrics().getNumberOfSlowSuccessfulCalls()).isOne();
		assertThat(this.breaker.state()).isEqualTo(State.CLOSED);
		succeed(Duration.ofSeconds(12));
		assertThat(metrics().getNumberOfSlowSuccessfulCalls()).isEqualTo(2);
		assertThat(this.breaker.state()).isEqualTo(State.OPEN);
	}

	@Test
	void aStreamIsSlowWhenItsFirstTokenReachesTheSlowFirstTokenDuration() {
		streamed(Duration.ofSeconds(3));
		streamed(Duration.ofSeconds(5));
		assertThat(metrics().getNumberOfSlowSuccessfulCalls()).isEqualTo(2);
	}

	@Test
	void aStreamWhoseFirstTokenCameSoonerIsNotSlow() {
		streamed(Duration.ofSeconds(3).minusMillis(1));
		streamed(Duration.ZERO);
		assertThat(metrics().getNumberOfSlowSuccessfulCalls()).isZero();
		assertThat(metrics().getNumberOfSuccessfulCalls()).isEqualTo(2);
	}

	@Test
	void aStreamIsJudgedOnItsOwnThresholdEvenWhenItIsAboveTheSlowCallDuration() {
		Breaker patient = breaker(this.time, SETTINGS.withSlowFirstTokenDuration(Duration.ofSeconds(20)));
		assertThat(patient.tryAcquire()).isTrue();
		patient.onStreamSuccess(Duration.ofSeconds(15).toNanos());
		assertThat(patient.tryAcquire()).isTrue();
		patient.onStreamSuccess(Duration.ofSeconds(20).toNanos());
		CircuitBreaker.Metrics metrics = patient.circuitBreaker().getMetrics();
		assertThat(metrics.getNumberOfSuccessfulCalls()).isEqualTo(2);
		assertThat(metrics.getNumberOfSlowSuccessfulCalls()).isOne();
	}

	@Test
	void slowStreamsOpenTheBreaker() {
		for (int i = 0; i < 4; i++) {
			streamed(Duration.ofSeconds(4));
		}
		assertThat(this.breaker.state()).isEqualTo(State.OPEN);
	}

	@Test
	void aClosedBreakerIsUsableNow() {
		Instant now = this.time.instant();
		assertThat(this.breaker.isUsable()).isTrue();
		assertThat(this.breaker.availableAt(now)).isSameAs(now);
		assertThat(this.breaker.availableAt()).isEqualTo(now);
	}

	@Test
	void anOpenBreakerIsAvailableAtTheEndOfItsOpenDuration() {
		Instant openedAt = this.time.instant();
		open();
		assertThat(this.breaker.isUsable()).isFalse();
		assertThat(this.breaker.availableAt(this.time.instant())).isEqualTo(openedAt.plus(OPEN));
		assertThat(this.breaker.availableAt()).isEqualTo(openedAt.plus(OPEN));

		this.time.advance(OPEN);
		assertThat(this.breaker.isUsable()).isFalse();
		assertThat(this.breaker.tryAcquire()).isFalse();
		assertThat(this.breaker.availableAt(this.time.instant())).isEqualTo(this.time.instant());

		this.time.advance(Duration.ofMillis(1));
		assertThat(this.breaker.isUsable()).isTrue();
		assertThat(this.breaker.tryAcquire()).isTrue();
		assertThat(this.breaker.state()).isEqualTo(State.HALF_OPEN);
	}

	@Test
	void anOpenBreakerNobodyCalledSinceItsOpenDurationEndedIsAvailableNowNotInThePast() {
		open();
		this.time.advance(OPEN.multipliedBy(2));
		Instant now = this.time.instant();
		assertThat(this.breaker.state()).isEqualTo(State.OPEN);
		assertThat(this.breaker.isUsable()).isTrue();
		assertThat(this.breaker.availableAt(now)).isEqualTo(now);
		assertThat(this.breaker.availableAt()).isEqualTo(now);
	}

	@Test
	void aBreakerOpenedBetweenTwoMillisecondsIsNeverAvailableInThePast() {
		this.time.advance(Duration.ofNanos(500_000));
		open();
		this.time.advance(OPEN.plusNanos(300_000).minusNanos(500_000));
		Instant now = this.time.instant();
		assertThat(this.breaker.tryAcquire()).isFalse();
		assertThat(this.breaker.isUsable()).isFalse();
		assertThat(this.breaker.availableAt(now)).isAfterOrEqualTo(now);
	}

	@Test
	void aForcedOpenBreakerCannotTellWhen() {
		this.breaker.circuitBreaker().transitionToForcedOpenState();
		assertThat(this.breaker.isForcedOpen()).isTrue();
		assertThat(this.breaker.isUsable()).isFalse();
		assertThat(this.breaker.tryAcquire()).isFalse();
		assertThat(this.breaker.availableAt(this.time.instant())).isNull();
		assertThat(this.breaker.availableAt()).isEqualTo(Instant.MAX);
		this.time.advance(Duration.ofDays(1));
		assertThat(this.breaker.isUsable()).isFalse();
	}

	@Test
	void eachFailedTrialDoublesTheOpenDurationUpToItsMaximumAndClosingStartsItOver() {
		open();
		assertThat(openFor()).isEqualTo(OPEN);
		failTrial();
		assertThat(openFor()).isEqualTo(OPEN.multipliedBy(2));
		failTrial();
		assertThat(openFor()).isEqualTo(OPEN.multipliedBy(4));
		failTrial();
		assertThat(openFor()).isEqualTo(Duration.ofMinutes(2));

		this.time.advance(Duration.ofMinutes(2).plusMillis(1));
		assertThat(this.breaker.tryAcquire()).isTrue();
		this.breaker.onSuccess(Duration.ofSeconds(1).toNanos());
		assertThat(this.breaker.state()).isEqualTo(State.CLOSED);
		open();
		assertThat(openFor()).isEqualTo(OPEN);
	}

	@Test
	void aHalfOpenBreakerLetsItsTrialsThroughAndNoMore() {
		Breaker twoTrials = breaker(this.time,
				new BreakerSettings(4, 4, 50, Duration.ofSeconds(10), 50, OPEN, Duration.ofMinutes(2), 2));
		for (int i = 0; i < 4; i++) {
			assertThat(twoTrials.tryAcquire()).isTrue();
			twoTrials.onFailure(1_000_000, Verdict.of(Outcome.AVAILABILITY), new IOException("503"));
		}
		this.time.advance(OPEN.plusMillis(1));
		assertThat(twoTrials.tryAcquire()).isTrue();
		assertThat(twoTrials.state()).isEqualTo(State.HALF_OPEN);
		assertThat(twoTrials.isUsable()).isTrue();
		assertThat(twoTrials.tryAcquire()).isTrue();
		assertThat(twoTrials.isUsable()).isFalse();
		assertThat(twoTrials.tryAcquire()).isFalse();
		Instant now = this.time.instant();
		assertThat(twoTrials.availableAt(now)).isEqualTo(now);
	}

	@Test
	void aReleasedTrialIsFreeAgain() {
		halfOpenWithTrialTaken();
		assertThat(this.breaker.isUsable()).isFalse();
		this.breaker.release();
		assertThat(this.breaker.state()).isEqualTo(State.HALF_OPEN);
		assertThat(this.breaker.isUsable()).isTrue();
		assertThat(this.breaker.tryAcquire()).isTrue();
		assertThat(this.breaker.isUsable()).isFalse();
	}

	@Test
	void aReleasedPermitIsNotRecorded() {
		assertThat(this.breaker.tryAcquire()).isTrue();
		this.breaker.release();
		assertThat(metrics().getNumberOfBufferedCalls()).isZero();
		assertThat(this.breaker.isUsable()).isTrue();
	}

	@ParameterizedTest
	@EnumSource(names = { "REQUEST", "CONTENT_FILTER", "QUOTA", "CREDENTIAL" })
	void aTrialWhoseFailureIsIgnoredIsFreeAgain(Outcome outcome) {
		halfOpenWithTrialTaken();
		this.breaker.onFailure(1_000_000, Verdict.of(outcome), new IOException("caller's fault"));
		assertThat(this.breaker.state()).isEqualTo(State.HALF_OPEN);
		assertThat(this.breaker.isUsable()).isTrue();
		assertThat(this.breaker.tryAcquire()).isTrue();
		assertThat(this.breaker.isUsable()).isFalse();
		assertThat(this.breaker.tryAcquire()).isFalse();
	}

	@Test
	void aSuccessfulTrialClosesTheBreakerAndAFailedOneOpensIt() {
		halfOpenWithTrialTaken();
		this.breaker.onSuccess(Duration.ofSeconds(1).toNanos());
		assertThat(this.breaker.state()).isEqualTo(State.CLOSED);
		assertThat(this.breaker.isUsable()).isTrue();

		open();
		this.time.advance(OPEN.plusMillis(1));
		assertThat(this.breaker.tryAcquire()).isTrue();
		this.breaker.onFailure(1_000_000, Verdict.of(Outcome.AVAILABILITY), new IOException("503"));
		assertThat(this.breaker.state()).isEqualTo(State.OPEN);
	}

	@Test
	void aTrialThatNeverReportsCountsAsFailedAfterTheHalfOpenTimeout() {
		halfOpenWithTrialTaken();
		this.time.advance(HALF_OPEN_TIMEOUT.minusMillis(1));
		assertThat(this.breaker.tryAcquire()).isFalse();
		assertThat(this.breaker.state()).isEqualTo(State.HALF_OPEN);

		this.time.advance(Duration.ofMillis(1));
		assertThat(this.breaker.state()).as("the limit is read when a call is refused").isEqualTo(State.HALF_OPEN);
		assertThat(this.breaker.tryAcquire()).isFalse();
		assertThat(this.breaker.state()).isEqualTo(State.OPEN);
		assertThat(openFor()).as("a failed trial doubles the open duration").isEqualTo(OPEN.multipliedBy(2));

		this.breaker.onSuccess(Duration.ofSeconds(1).toNanos());
		assertThat(this.breaker.state()).as("the late trial does not close it").isEqualTo(State.OPEN);
	}

	@Test
	void theHalfOpenTimeoutCountsFromTheHalfOpenTransition() {
		open();
		this.time.advance(OPEN.plus(HALF_OPEN_TIMEOUT));
		assertThat(this.breaker.tryAcquire()).as("the trial itself is let through").isTrue();
		assertThat(this.breaker.state()).isEqualTo(State.HALF_OPEN);
		this.time.advance(HALF_OPEN_TIMEOUT.minusMillis(1));
		assertThat(this.breaker.tryAcquire()).isFalse();
		assertThat(this.breaker.state()).isEqualTo(State.HALF_OPEN);
	}

	@Test
	void onTheSystemClockAnOpenBreakerIsNeverAvailableInThePast() {
		Clock clock = Clock.systemUTC();
		Breaker real = breaker(clock, SETTINGS);
		Instant before = clock.instant();
		for (int i = 0; i < 4; i++) {
			assertThat(real.tryAcquire()).isTrue();
			real.onFailure(1_000_000, Verdict.of(Outcome.AVAILABILITY), new IOException("503"));
		}
		Instant now = clock.instant();
		assertThat(real.state()).isEqualTo(State.OPEN);
		assertThat(real.isUsable()).isFalse();
		assertThat(real.availableAt(now)).isAfter(now)
			.isBetween(before.plus(OPEN).minusMillis(1), now.plus(OPEN).plusMillis(1));
		assertThat(real.availableAt()).isAfterOrEqualTo(now);
		Instant later = clock.instant().plus(OPEN.multipliedBy(3));
		assertThat(real.availableAt(later)).isAfterOrEqualTo(later);
	}

	private static Breaker breaker(Clock clock, BreakerSettings settings) {
		return new Breakers(clock, new StateChanges(clock)).forDomain(DOMAIN, settings,
				(error) -> Verdict.of((error instanceof IOException) ? Outcome.AVAILABILITY : Outcome.REQUEST));
	}

	private CircuitBreaker.Metrics metrics() {
		return this.breaker.circuitBreaker().getMetrics();
	}

	private void fail(Outcome outcome) {
		assertThat(this.breaker.tryAcquire()).isTrue();
		this.breaker.onFailure(1_000_000, Verdict.of(outcome), new IOException(outcome.name()));
	}

	private void succeed(Duration duration) {
		assertThat(this.breaker.tryAcquire()).isTrue();
		this.breaker.onSuccess(duration.toNanos());
	}

	private void streamed(Duration firstToken) {
		assertThat(this.breaker.tryAcquire()).isTrue();
		this.breaker.onStreamSuccess(firstToken.toNanos());
	}

	private void open() {
		while (this.breaker.state() == State.CLOSED) {
			fail(Outcome.AVAILABILITY);
		}
		assertThat(this.breaker.state()).isEqualTo(State.OPEN);
	}

	private void halfOpenWithTrialTaken() {
		open();
		this.time.advance(openFor().plusMillis(1));
		assertThat(this.breaker.tryAcquire()).isTrue();
		assertThat(this.breaker.state()).isEqualTo(State.HALF_OPEN);
	}

	private void failTrial() {
		this.time.advance(openFor().plusMillis(1));
		assertThat(this.breaker.tryAcquire()).isTrue();
		this.breaker.onFailure(1_000_000, Verdict.of(Outcome.AVAILABILITY), new IOException("503"));
		assertThat(this.breaker.state()).isEqualTo(State.OPEN);
	}

	/** How long the open breaker stays open from now. */
	private Duration openFor() {
		return Duration.between(this.time.instant(), this.breaker.availableAt(this.time.instant()));
	}

}
