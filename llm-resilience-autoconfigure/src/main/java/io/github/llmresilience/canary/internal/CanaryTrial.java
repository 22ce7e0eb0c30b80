package io.github.llmresilience.canary.internal;

import java.io.IOException;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

import io.github.llmresilience.breaker.internal.Breaker;
import io.github.llmresilience.breaker.internal.TrialProbe;
import io.github.llmresilience.canary.CanaryJudge;
import io.github.llmresilience.canary.CanaryProbe;
import io.github.llmresilience.canary.CanaryRequest;
import io.github.llmresilience.canary.CanarySettings;
import io.github.llmresilience.target.Target;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * A failure domain's canary as its breaker's trial: woken on the engine's scheduler when
 * the open time ends, it sends the canary off the call path (the sender is called on
 * Reactor's bounded-elastic threads, so a blocking {@link CanaryProbe} blocks no timer
 * and no caller), cuts the answer at the canary's timeout, judges it, and reports exactly
 * one outcome to the breaker. A sender or judge that throws, returns nothing or hangs is
 * a failed trial: the breaker opens again and comes round to its next trial.
 */
public final class CanaryTrial implements TrialProbe {

	private static final Logger logger = LoggerFactory.getLogger(CanaryTrial.class);

	private final CanaryRequest request;

	private final CanarySettings settings;

	private final CanaryProbe probe;

	private final @Nullable CanaryJudge judge;

	private final @Nullable Pattern pattern;

	private final Scheduler scheduler;

	private final Clock clock;

	private final LongSupplier nanoTime;

	/**
	 * @param target the target the canary asks
	 * @param settings the prompt, timeout and judgement
	 * @param probe the sender: the built-in {@link PromptProbe} or the application's
	 * @param judge the application's judge, required for
	 * {@link CanarySettings.Judge#PREDICATE}
	 * @param scheduler the engine's scheduler: wake-ups and the timeout
	 * @param clock the engine's clock
	 * @param nanoTime the engine's monotonic time source
	 * @throws IllegalArgumentException when the judgement needs a judge and none is given
	 */
	public CanaryTrial(Target target, CanarySettings settings, CanaryProbe probe, @Nullable CanaryJudge judge,
			Scheduler scheduler, Clock clock, LongSupplier nanoTime) {
		if (settings.judge() == CanarySettings.Judge.PREDICATE && judge == null) {
			throw new IllegalArgumentException(
					"Target '" + target.name() + "': a canary judged by a predicate needs a CanaryJudge");
		}
		this.request = new CanaryRequest(target, settings.prompt(), settings.maxTokens(), settings.timeout());
		this.settings = settings;
		this.probe = probe;
		this.judge = judge;
		this.pattern = (settings.judge() == CanarySettings.Judge.REGEX && settings.pattern() != null)
				? Pattern.compile(settings.pattern()) : null;
		this.scheduler = scheduler;
		this.clock = clock;
		this.nanoTime = nanoTime;
	}

	@Override
	public void wakeAt(Breaker breaker, long atMillis) {
		long delay = Math.max(0, atMillis - this.clock.millis());
		try {
			this.scheduler.schedule(breaker::probeDue, delay, TimeUnit.MILLISECONDS);
		}
		catch (RuntimeException ex) {
			// A disposed scheduler: the next call that finds the open time over starts
			// it.
			logger.warn("Canary of {} not scheduled: {}", breaker.domain(), ex.toString());
		}
	}

	@Override
	public void send(Breaker breaker, long trial) {
		long start = this.nanoTime.getAsLong();
		try {
			Mono.defer(() -> Objects.requireNonNull(this.probe.probe(this.request), "CanaryProbe returned null"))
				.subscribeOn(Schedulers.boundedElastic())
				.timeout(this.settings.timeout(), this.scheduler)
				.map(this::judge)
				.defaultIfEmpty(Outcome.failed("the probe gave no answer"))
				.onErrorResume((error) -> Mono.just(Outcome.failed(describe(error))))
				.subscribe((outcome) -> report(breaker, trial, start, outcome),
						(error) -> report(breaker, trial, start, Outcome.failed(describe(error))));
		}
		catch (RuntimeException ex) {
			report(breaker, trial, start, Outcome.failed(describe(ex)));
		}
	}

	private void report(Breaker breaker, long trial, long start, Outcome outcome) {
		long nanos = Math.max(0, this.nanoTime.getAsLong() - start);
		try {
			breaker.probeAnswered(trial, outcome.passed(), nanos, outcome.reason());
		}
		catch (RuntimeException ex) {
			logger.warn("Canary outcome of {} not recorded", breaker.domain(), ex);
		}
	}

	/** Judge an answer that came well-formed; a judge that throws fails it. */
	Outcome judge(String answer) {
		String name = this.settings.judge().name().toLowerCase(Locale.ROOT);
		try {
			String failure = switch (this.settings.judge()) {
				case ANSWER -> answer.isBlank() ? "answer empty" : null;
				case JSON -> StrictJson.isJson(answer) ? null : "answer not JSON";
				case REGEX -> (this.pattern != null && this.pattern.matcher(answer).find()) ? null
						: "answer does not match the pattern " + this.settings.pattern();
				case PREDICATE -> (this.judge != null && this.judge.passes(this.request.target(), answer)) ? null
						: "answer rejected by the CanaryJudge";
			};
			return (failure != null) ? Outcome.failed(failure) : new Outcome(true, "answer passed (" + name + ")");
		}
		catch (RuntimeException | Error ex) {
			if (ex instanceof VirtualMachineError error) {
				throw error;
			}
			logger.warn("The CanaryJudge of target '{}' threw: a failed trial", this.request.target().name(), ex);
			return Outcome.failed("the CanaryJudge failed (" + ex.getClass().getSimpleName() + ")");
		}
	}

	/** What went wrong, in words safe for an event: never a message of unknown origin. */
	private String describe(Throwable error) {
		if (error instanceof CanaryFailure failure) {
			return String.valueOf(failure.getMessage());
		}
		if (error instanceof TimeoutException || error instanceof HttpTimeoutException) {
			return "no answer within " + this.settings.timeout();
		}
		if (error instanceof IOException) {
			return "no answer (" + error.getClass().getSimpleName() + ")";
		}
		logger.warn("The canary of target '{}' failed: a failed trial", this.request.target().name(), error);
		return "the probe failed (" + error.getClass().getSimpleName() + ")";
	}

	/** One trial's outcome: whether it passed, and what the canary saw. */
	record Outcome(boolean passed, String reason) {

		static Outcome failed(String reason) {
			return new Outcome(false, reason);
		}

	}

}
