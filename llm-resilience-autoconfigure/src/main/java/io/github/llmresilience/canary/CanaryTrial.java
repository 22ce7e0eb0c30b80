package io.github.llmresilience.canary;

import java.io.IOException;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

import io.github.llmresilience.breaker.Breaker;
import io.github.llmresilience.breaker.TrialProbe;
import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.change.StateChanges;
import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.Verdict;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
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
 *
 * <p>
 * A domain may hold several targets on several accounts. The canary goes from the first
 * of them (in configuration order) whose account and quota scope let a request go, and
 * its answer is read as a call's would be: the target's classifier gives the verdict, and
 * the engine gates, parks or locks on it as for a call. A verdict on the account
 * ({@code CREDENTIAL}, {@code QUOTA}, {@code THROTTLED}) says nothing of the domain: the
 * canary goes from the next usable target at once, and when none is left the trial waits
 * (neither failed nor grown) until a hold ends. A verdict on the canary's own request
 * ({@code REQUEST}, {@code CONTENT_FILTER}) means it cannot judge the domain: it is
 * withdrawn, once, and calls are the domain's trials from then on.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public final class CanaryTrial implements TrialProbe {

	private static final Logger logger = LoggerFactory.getLogger(CanaryTrial.class);

	/**
	 * Passes over the domain's targets in one go before the trial waits: a key rejected
	 * once is asked again in the next pass, so that the default {@code lock-after} of 2
	 * locks it as two calls would, and a misread hold cannot loop.
	 */
	static final int MAX_PASSES = 3;

	private final List<Canary> canaries;

	private final Scheduler scheduler;

	private final Clock clock;

	private final LongSupplier nanoTime;

	private final StateChanges events;

	/** The trial being sent, by number; 0 before the first. */
	private volatile long trial;

	/** Whether the canary stopped: calls are the trials. */
	private final AtomicBoolean withdrawn = new AtomicBoolean();

	/**
	 * One target the canary may be sent from.
	 *
	 * @param target the target and what its answers do
	 * @param settings its canary's prompt, timeout and judgement
	 * @param probe the sender: the built-in {@link PromptProbe} or the application's
	 */
	public record Sender(CanaryTarget target, CanarySettings settings, CanaryProbe probe) {

		public Sender {
			Objects.requireNonNull(target, "target");
			Objects.requireNonNull(settings, "settings");
			Objects.requireNonNull(probe, "probe");
		}

	}

	/**
	 * @param senders the domain's targets that have a canary, in configuration order
	 * @param judge the application's judge, required for
	 * {@link CanarySettings.Judge#PREDICATE}
	 * @param scheduler the engine's scheduler: wake-ups, waits and the timeout
	 * @param clock the engine's clock
	 * @param nanoTime the engine's monotonic time source
	 * @param events where the canary's withdrawal is published
	 * @throws IllegalArgumentException when there is no sender, or a judgement needs a
	 * judge and none is given
	 */
	public CanaryTrial(List<Sender> senders, @Nullable CanaryJudge judge, Scheduler scheduler, Clock clock,
			LongSupplier nanoTime, StateChanges events) {
		if (senders.isEmpty()) {
			throw new IllegalArgumentException("A canary needs a target to be sent from");
		}
		List<Canary> canaries = new ArrayList<>();
		for (Sender sender : senders) {
			canaries.add(new Canary(sender, judge, senders.size() > 1));
		}
		this.canaries = List.copyOf(canaries);
		this.scheduler = scheduler;
		this.clock = clock;
		this.nanoTime = nanoTime;
		this.events = events;
	}

	// When

	@Override
	public void wakeAt(Breaker breaker, long atMillis) {
		schedule(() -> due(breaker), atMillis, breaker);
	}

	/**
	 * The open time has ended: ask the breaker for the trial when a target may send the
	 * canary; else the breaker stays open, and the canary looks again when a hold ends.
	 */
	private void due(Breaker breaker) {
		if (breaker.state() != CircuitBreaker.State.OPEN || !breaker.hasProbe()) {
			return;
		}
		long now = this.clock.millis();
		long held = heldUntil(now);
		if (held > now) {
			long at = recheckAt(breaker, now, held);
			logger.debug("Canary of {}: no account of the domain may send it; looking again at {}", breaker.domain(),
					Instant.ofEpochMilli(at));
			schedule(() -> due(breaker), at, breaker);
			return;
		}
		breaker.probeDue();
	}

	/**
	 * When to look again for a target that may send: when the first hold ends, and no
	 * later than an open duration from now (a hold an operator lifts is found then).
	 */
	private static long recheckAt(Breaker breaker, long now, long held) {
		long bound = now + Math.max(1, breaker.settings().openDuration().toMillis());
		return (held > now) ? Math.min(held, bound) : bound;
	}

	/**
	 * When the first target of the domain may send: {@code now} or earlier when one may
	 * now.
	 */
	private long heldUntil(long now) {
		long earliest = Long.MAX_VALUE;
		for (Canary canary : this.canaries) {
			long until = heldUntil(canary, now);
			if (until <= now) {
				return until;
			}
			earliest = Math.min(earliest, until);
		}
		return earliest;
	}

	private long heldUntil(Canary canary, long now) {
		try {
			return canary.target.heldUntil().toEpochMilli();
		}
		catch (RuntimeException ex) {
			// Never an instant out of range here, but a canary must not die of one.
			logger.warn("Canary of target '{}': its hold not read", canary.name(), ex);
			return now;
		}
	}

	private void schedule(Runnable task, long atMillis, Breaker breaker) {
		long delay = Math.max(0, atMillis - this.clock.millis());
		try {
			this.scheduler.schedule(task, delay, TimeUnit.MILLISECONDS);
		}
		catch (RuntimeException ex) {
			// A disposed scheduler: the next call that finds the open time over starts
			// it.
			logger.warn("Canary of {} not scheduled: {}", breaker.domain(), ex.toString());
		}
	}

	// Send

	@Override
	public void send(Breaker breaker, long trial) {
		this.trial = trial;
		try {
			walk(new Round(breaker, trial, this.canaries.size()));
		}
		catch (RuntimeException ex) {
			// Nothing here throws by design; a trial must end whatever happens.
			report(new Round(breaker, trial, this.canaries.size()), this.nanoTime.getAsLong(),
					Result.failed("the canary failed (" + ex.getClass().getSimpleName() + ")"));
		}
	}

	/**
	 * Send the canary from the next target of the pass that may send it; when the pass is
	 * over, start another if a target is still usable, else wait for a hold to end.
	 */
	private void walk(Round round) {
		if (!isCurrent(round)) {
			return;
		}
		long now = this.clock.millis();
		for (int i = 0; i < this.canaries.size(); i++) {
			if (!round.tried[i] && heldUntil(this.canaries.get(i), now) <= now) {
				round.tried[i] = true;
				round.sent = true;
				round.waiting = false;
				ask(round, this.canaries.get(i));
				return;
			}
		}
		long held = heldUntil(now);
		if (round.sent && round.passes < MAX_PASSES && held <= now) {
			round.nextPass();
			walk(round);
			return;
		}
		// No target may send: the trial waits, in flight, for the first hold to end.
		long at = recheckAt(round.breaker, now, held);
		if (!round.waiting) {
			round.waiting = true;
			logger.info("Canary of {}: no account of the domain may send it now; the trial waits, looking again at {}",
					round.breaker.domain(), Instant.ofEpochMilli(at));
		}
		schedule(() -> {
			round.restart();
			walk(round);
		}, at, round.breaker);
	}

	/**
	 * Whether the trial is still the breaker's: not ended by an operator or a timeout.
	 */
	private boolean isCurrent(Round round) {
		return this.trial == round.trial && round.breaker.state() == CircuitBreaker.State.HALF_OPEN;
	}

	private void ask(Round round, Canary canary) {
		long start = this.nanoTime.getAsLong();
		try {
			Mono.defer(() -> Objects.requireNonNull(canary.probe.probe(canary.request), "CanaryProbe returned null"))
				.subscribeOn(Schedulers.boundedElastic())
				.timeout(canary.settings.timeout(), this.scheduler)
				.map(canary::judge)
				.defaultIfEmpty(Result.failed("the probe gave no answer"))
				.onErrorResume((error) -> Mono.just(read(canary, error)))
				.subscribe((result) -> settle(round, canary, start, result),
						(error) -> settle(round, canary, start, Result.failed(describe(canary, error))));
		}
		catch (RuntimeException ex) {
			settle(round, canary, start, Result.failed(describe(canary, ex)));
		}
	}

	/** What a canary that ended in an error says, read as a call's error would be. */
	private Result read(Canary canary, Throwable error) {
		if (error instanceof CanaryFailure || error instanceof TimeoutException
				|| error instanceof HttpTimeoutException) {
			return Result.failed(describe(canary, error));
		}
		ProviderResponse answer;
		Verdict verdict;
		try {
			answer = canary.target.answer(error);
			if (answer == null) {
				return Result.failed(describe(canary, error));
			}
			verdict = canary.target.classify(answer);
		}
		catch (RuntimeException ex) {
			logger.warn("The canary answer of target '{}' not classified: a failed trial", canary.name(), ex);
			return Result.failed(describe(canary, error));
		}
		String seen = describe(answer);
		return switch (verdict.outcome()) {
			case CREDENTIAL, QUOTA, THROTTLED -> new Result(Result.Kind.ACCOUNT, seen, verdict);
			case REQUEST, CONTENT_FILTER -> new Result(Result.Kind.REFUSED, seen, verdict);
			// The provider answered and the probe's own code failed afterwards.
			case SUCCESS -> Result.failed(describe(canary, error));
			default -> new Result(Result.Kind.FAILED, seen, verdict);
		};
	}

	/**
	 * One canary ended: record what its verdict does, then end or go on with the trial.
	 */
	private void settle(Round round, Canary canary, long start, Result result) {
		try {
			if (result.verdict != null) {
				canary.target.hold(result.verdict);
			}
			else if (result.answered) {
				canary.target.answered();
			}
		}
		catch (RuntimeException ex) {
			// Bookkeeping never decides the trial.
			logger.warn("Canary of target '{}': its answer not recorded", canary.name(), ex);
		}
		try {
			switch (result.kind) {
				case ACCOUNT -> {
					logger.info(
							"Canary of {}: target '{}' answered {} ({}), a verdict on its account, not on the domain",
							round.breaker.domain(), canary.name(), result.reason, verdictName(result.verdict));
					walk(round);
				}
				case REFUSED -> withdraw(round, canary, result);
				default -> report(round, start, result.named(canary));
			}
		}
		catch (RuntimeException ex) {
			// Nothing here throws by design; a trial must end whatever happens.
			logger.warn("Canary of {}: the trial not carried on", round.breaker.domain(), ex);
			report(round, start, Result.failed("the canary failed (" + ex.getClass().getSimpleName() + ")"));
		}
	}

	private void report(Round round, long start, Result result) {
		long nanos = Math.max(0, this.nanoTime.getAsLong() - start);
		try {
			round.breaker.probeAnswered(round.trial, result.kind == Result.Kind.PASSED, nanos, result.reason);
		}
		catch (RuntimeException ex) {
			logger.warn("Canary outcome of {} not recorded", round.breaker.domain(), ex);
		}
	}

	/**
	 * The provider refused the canary's own request: it cannot judge the domain, now or
	 * later (its prompt, model and parameters are fixed). It stops, once; calls are the
	 * trials from now on, the one under way included.
	 */
	private void withdraw(Round round, Canary canary, Result result) {
		if (!this.withdrawn.compareAndSet(false, true)) {
			return;
		}
		try {
			this.events.publish(StateChange.Kind.CANARY_WITHDRAWN, round.breaker.domain(),
					"the canary of target '" + canary.name() + "' was refused: " + result.reason + " ("
							+ verdictName(result.verdict) + "); calls are the breaker's trials until the canary"
							+ " settings are corrected and the application restarts",
					null);
		}
		finally {
			round.breaker.dropProbe(this);
		}
	}

	private static String verdictName(@Nullable Verdict verdict) {
		if (verdict == null) {
			return "no verdict";
		}
		String type = verdict.errorType().orElse(null);
		return verdict.outcome() + ((type != null) ? ", " + type : "");
	}

	/** What an answer was, in words safe for an event: its status, never its body. */
	private static String describe(ProviderResponse answer) {
		Throwable cause = answer.cause();
		return switch (answer.kind()) {
			case HTTP -> "HTTP " + answer.status();
			case STREAM_EVENT -> "a stream event";
			case TIMEOUT -> "no answer in time";
			case CONNECTION_FAILURE ->
				"no answer" + ((cause != null) ? " (" + cause.getClass().getSimpleName() + ")" : "");
		};
	}

	/** What went wrong, in words safe for an event: never a message of unknown origin. */
	private String describe(Canary canary, Throwable error) {
		if (error instanceof CanaryFailure failure) {
			return String.valueOf(failure.getMessage());
		}
		if (error instanceof TimeoutException || error instanceof HttpTimeoutException) {
			return "no answer within " + canary.settings.timeout();
		}
		if (error instanceof IOException) {
			return "no answer (" + error.getClass().getSimpleName() + ")";
		}
		logger.warn("The canary of target '{}' failed: a failed trial", canary.name(), error);
		return "the probe failed (" + error.getClass().getSimpleName() + ")";
	}

	/** One target's canary: its request, judgement and sender. */
	private static final class Canary {

		private final CanaryTarget target;

		private final CanaryRequest request;

		private final CanarySettings settings;

		private final CanaryProbe probe;

		private final @Nullable CanaryJudge judge;

		private final @Nullable Pattern pattern;

		/** Whether a passed answer names the target: the domain has several. */
		private final boolean named;

		Canary(Sender sender, @Nullable CanaryJudge judge, boolean named) {
			CanarySettings settings = sender.settings();
			String name = sender.target().target().name();
			if (settings.judge() == CanarySettings.Judge.PREDICATE && judge == null) {
				throw new IllegalArgumentException(
						"Target '" + name + "': a canary judged by a predicate needs a CanaryJudge");
			}
			this.target = sender.target();
			this.request = new CanaryRequest(sender.target().target(), settings.prompt(), settings.maxTokens(),
					settings.timeout());
			this.settings = settings;
			this.probe = sender.probe();
			this.judge = judge;
			this.pattern = (settings.judge() == CanarySettings.Judge.REGEX && settings.pattern() != null)
					? Pattern.compile(settings.pattern()) : null;
			this.named = named;
		}

		String name() {
			return this.request.target().name();
		}

		/** Judge an answer that came well-formed; a judge that throws fails it. */
		Result judge(String answer) {
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
				return (failure != null) ? Result.answeredAndFailed(failure)
						: new Result(Result.Kind.PASSED, "answer passed (" + name + ")", null);
			}
			catch (RuntimeException | Error ex) {
				if (ex instanceof VirtualMachineError error) {
					throw error;
				}
				logger.warn("The CanaryJudge of target '{}' threw: a failed trial", name(), ex);
				return Result.answeredAndFailed("the CanaryJudge failed (" + ex.getClass().getSimpleName() + ")");
			}
		}

	}

	/** One canary's outcome: what it means for the trial, and what the canary saw. */
	static final class Result {

		enum Kind {

			/** The answer passed: the trial passed. */
			PASSED,

			/** The domain failed the canary: the trial failed. */
			FAILED,

			/** A verdict on the account: not the domain's; the next target is asked. */
			ACCOUNT,

			/** The provider refused the canary's own request: it cannot judge. */
			REFUSED

		}

		final Kind kind;

		final String reason;

		/** The provider's verdict on an error answer; {@code null} for any other. */
		final @Nullable Verdict verdict;

		/** Whether the provider answered with a 2xx: the account's key works. */
		final boolean answered;

		Result(Kind kind, String reason, @Nullable Verdict verdict) {
			this(kind, reason, verdict, kind == Kind.PASSED);
		}

		private Result(Kind kind, String reason, @Nullable Verdict verdict, boolean answered) {
			this.kind = kind;
			this.reason = reason;
			this.verdict = verdict;
			this.answered = answered;
		}

		static Result failed(String reason) {
			return new Result(Kind.FAILED, reason, null, false);
		}

		static Result answeredAndFailed(String reason) {
			return new Result(Kind.FAILED, reason, null, true);
		}

		/** With the target named, when the domain has several to send from. */
		Result named(Canary canary) {
			return canary.named ? new Result(this.kind, this.reason + " from target '" + canary.name() + "'",
					this.verdict, this.answered) : this;
		}

	}

	/**
	 * One trial under way: its breaker, its number, and the targets asked in this pass.
	 */
	private static final class Round {

		final Breaker breaker;

		final long trial;

		final boolean[] tried;

		/** Whether a canary was sent in this pass. */
		boolean sent;

		/** Whether the trial waits for a target: its wait is logged once. */
		boolean waiting;

		int passes = 1;

		Round(Breaker breaker, long trial, int targets) {
			this.breaker = breaker;
			this.trial = trial;
			this.tried = new boolean[targets];
		}

		void nextPass() {
			Arrays.fill(this.tried, false);
			this.sent = false;
			this.passes++;
		}

		/** After a wait: a fresh start. */
		void restart() {
			nextPass();
			this.passes = 1;
		}

	}

}
