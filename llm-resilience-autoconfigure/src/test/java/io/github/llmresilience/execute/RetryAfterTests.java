package io.github.llmresilience.execute;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import io.github.llmresilience.extract.ErrorExtractors;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.test.FakeProvider;
import io.github.llmresilience.test.FakeProvider.Reply;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LlmUnavailableException#retryAfter()} is a time a job queue can use: never
 * already past, never beyond the longest wait, bounded when an operator holds a breaker.
 */
class RetryAfterTests {

	private final EngineHarness h = new EngineHarness();

	@AfterEach
	void close() {
		this.h.close();
	}

	@Test
	void onTheSystemClockRetryAfterAFailureWithTheBreakerClosedIsStillAhead() {
		try (FakeProvider provider = new FakeProvider()) {
			provider.always("primary", Reply.json(503, FakeProviderBodies.SERVER_ERROR));
			LlmResilience resilience = LlmResilience.builder()
				.clock(Clock.systemUTC())
				.target(new Target("primary", "openai", "acct", "gpt-4o", "us", URI.create(provider.baseUrl("primary")),
						null))
				.chain("chat", "primary")
				.extractors(ErrorExtractors.standard()
					.with(List.of(new io.github.llmresilience.web.WebClientErrorExtractor())))
				.retry(PermitSettlementTests.oneAttempt())
				.build();
			for (int i = 0; i < 3; i++) {
				Object outcome = resilience.execute("chat", this.h::webClientCall)
					.map(Object.class::cast)
					.onErrorResume(reactor.core.publisher.Mono::just)
					.block(Duration.ofSeconds(10));
				Instant now = Instant.now();
				assertThat(outcome).isInstanceOfSatisfying(LlmUnavailableException.class, (unavailable) -> {
					assertThat(unavailable.retryAfter()).isAfter(now);
					assertThat(unavailable.retryAfter()).isBefore(now.plusSeconds(5));
				});
			}
		}
	}

	@Test
	void aOneYearRetryAfterOnA503IsClampedToTheThrottleMaxWait() {
		this.h.provider.always("primary",
				Reply.json(503, Map.of("retry-after", "31536000"), FakeProviderBodies.SERVER_ERROR));
		this.h.build((builder) -> builder.retry(PermitSettlementTests.oneAttempt()), "primary");

		LlmUnavailableException unavailable = (LlmUnavailableException) this.h.chatFailure();
		Instant now = this.h.time.instant();
		assertThat(Duration.between(now, unavailable.retryAfter())).isPositive()
			.isLessThanOrEqualTo(Duration.ofSeconds(300));
	}

	@Test
	void aBreakerHeldOpenByAnOperatorGivesABoundedTimeAndSaysWhoHoldsIt() {
		this.h.build((builder) -> {
		}, "primary");
		this.h.resilience.operator().forceOpen("primary");

		LlmUnavailableException unavailable = (LlmUnavailableException) this.h.chatFailure();
		Instant now = this.h.time.instant();
		assertThat(Duration.between(now, unavailable.retryAfter())).isEqualTo(Duration.ofMinutes(15));
		assertThat(unavailable.getMessage()).contains("held open by an operator");
		assertThat(unavailable.steps()).extracting(ChainStep::skipped)
			.containsExactly(ChainStep.Skip.BREAKER_FORCED_OPEN);
		assertThat(this.h.resilience.availableAt("chat")).isEqualTo(now.plus(Duration.ofMinutes(15)));
		assertThat(this.h.provider.totalRequests()).isZero();
	}

}
