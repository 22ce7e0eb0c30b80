package io.github.llmresilience.execute;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.function.LongSupplier;

import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.UnclassifiedListener;
import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.extract.ErrorExtractors;
import io.github.llmresilience.overload.ProviderOverloads;
import io.github.llmresilience.pool.PoolSettings;
import io.github.llmresilience.pool.Pools;
import io.github.llmresilience.retry.Backoff;
import io.github.llmresilience.retry.RetrySettings;
import org.jspecify.annotations.Nullable;

/**
 * What every call of one {@link LlmResilience} shares, fixed when it is built: how to
 * tell time, how to read and report an error, how to back off, how long a call may take.
 *
 * @param clock the clock for expiries
 * @param nanoTime the monotonic time source for elapsed times
 * @param retry the retry settings
 * @param backoff the backoff between retries of one target
 * @param extractors what turns an exception into the provider's answer
 * @param unknownExceptions whose fault an exception no extractor knows is
 * @param unclassified told about exceptions no extractor knows
 * @param observer told about every attempt, retry, backoff and end of a call (each call
 * tells it, or a copy with its trace: {@link CallObservers#traced})
 * @param callTimeout the deadline of a call that sets none
 * @param overloads the providers marked overloaded, whose targets chains try last
 * @param pools the traffic classes: their waits, and each quota scope's partition
 * @param bookkeeping what logs a step of the bookkeeping after an answer that failed
 * @param tracing where each call's trace comes from
 */
record CallContext(Clock clock, LongSupplier nanoTime, RetrySettings retry, Backoff backoff, ErrorExtractors extractors,
		UnknownExceptions unknownExceptions, UnclassifiedListener unclassified, CallObservers observer,
		Duration callTimeout, ProviderOverloads overloads, Pools pools, AnswerBookkeeping bookkeeping,
		CallTracing tracing) {

	long now() {
		return this.nanoTime.getAsLong();
	}

	/**
	 * What the error says about the target's provider.
	 * @return the verdict, or {@code null} when the error is not the provider's answer
	 * (the caller's own exception, under {@link UnknownExceptions#CALLER})
	 */
	@Nullable Verdict classify(TargetRuntime target, Throwable error) {
		ProviderResponse response = this.extractors.extract(error);
		if (response == null) {
			String simpleName = error.getClass().getSimpleName();
			String type = simpleName.isEmpty() ? "Throwable" : simpleName;
			this.unclassified.unclassified(target.target().provider(), 0, type);
			return (this.unknownExceptions == UnknownExceptions.PROVIDER) ? Verdict.of(Outcome.AVAILABILITY, null, type)
					: null;
		}
		return target.classifier().classify(response);
	}

	/** The traffic class of that name, or the default one. */
	PoolSettings pool(String name) {
		return this.pools.pool(name);
	}

	/** A call of the pool starts waiting for a release. */
	CallWait waitFor(PoolSettings pool) {
		return new CallWait(this.pools, pool, this.clock, this.nanoTime, this.callTimeout.toNanos());
	}

	/**
	 * Whether the clock is the system's: elapsed times are then
	 * {@link System#nanoTime()}'s.
	 */
	static boolean isSystemTime(Clock clock) {
		return clock.withZone(ZoneOffset.UTC).equals(Clock.systemUTC());
	}

	/**
	 * Elapsed times need a monotonic source: the system clock gets
	 * {@link System#nanoTime()}; any other clock (a test's) is its own time source.
	 */
	static LongSupplier nanoTimeOf(Clock clock) {
		if (isSystemTime(clock)) {
			return System::nanoTime;
		}
		return () -> {
			Instant now = clock.instant();
			return now.getEpochSecond() * 1_000_000_000L + now.getNano();
		};
	}

}
