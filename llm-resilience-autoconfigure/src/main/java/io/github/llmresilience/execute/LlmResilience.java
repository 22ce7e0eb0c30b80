package io.github.llmresilience.execute;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

import io.github.llmresilience.breaker.Breaker;
import io.github.llmresilience.breaker.Breakers;
import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.change.StateChanges;
import io.github.llmresilience.classify.ClassificationRules;
import io.github.llmresilience.classify.ClassifierSettings;
import io.github.llmresilience.classify.ProviderClassifiers;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.UnclassifiedListener;
import io.github.llmresilience.classify.UnclassifiedListeners;
import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.execute.Attempt.State;
import io.github.llmresilience.fleet.Fleet;
import io.github.llmresilience.fleet.FleetSync;
import io.github.llmresilience.hedge.Hedges;
import io.github.llmresilience.overload.OverloadControl;
import io.github.llmresilience.overload.ProviderOverloads;
import io.github.llmresilience.pool.BucketSource;
import io.github.llmresilience.pool.LeasedSupplies;
import io.github.llmresilience.pool.SupplySource;
import io.github.llmresilience.pool.PoolState;
import io.github.llmresilience.pool.Pools;
import io.github.llmresilience.retry.Backoff;
import io.github.llmresilience.spend.Spend;
import io.github.llmresilience.spend.SpendState;
import io.github.llmresilience.state.FleetState;
import io.github.llmresilience.state.Operator;
import io.github.llmresilience.state.ResilienceState;
import io.github.llmresilience.target.TargetRegistry;
import io.github.llmresilience.throttle.Accounts;
import io.github.llmresilience.throttle.ThrottleGate;
import io.github.llmresilience.timeout.CoalescingTimer;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.ContextView;

/**
 * Runs LLM calls through a chain of targets: skips targets that cannot serve (parked or
 * locked account, gated quota scope, open breaker) without a request, classifies every
 * failure, records it where the verdict says, retries the same target within the retry
 * budget and the call's deadline, fails over to the next target, and surfaces the
 * caller's own errors at once.
 *
 * <pre class="code">
 * Mono&lt;String&gt; answer = resilience.execute("chat", (attempt) -&gt; webClient.post()
 *     .uri(attempt.target().baseUrl() + "/v1/chat/completions")
 *     .header("Idempotency-Key", attempt.idempotencyKey())
 *     .bodyValue(request)
 *     .retrieve()
 *     .bodyToMono(String.class));
 * </pre>
 */
public final class LlmResilience implements AutoCloseable {

	private final CallContext context;

	private final Scheduler scheduler;

	/**
	 * The scheduler when it is the coalescing timer and the engine keeps time on
	 * {@link System#nanoTime()}: a blocking attempt's alarm is then armed at its start
	 * plus its timeout, without reading the clock again.
	 */
	private final @Nullable CoalescingTimer alarms;

	/**
	 * A blocking attempt's timeout: claim the attempt and interrupt its caller. One
	 * object for every call, so arming an alarm allocates nothing.
	 */
	private static final CoalescingTimer.Expiry<Attempt> EXPIRY = (attempt, caller) -> {
		if (attempt.settle(State.CANCELLED)) {
			caller.interrupt();
			attempt.state(State.INTERRUPTED);
		}
	};

	private final TargetRuntimes targets;

	private final Fleet fleet;

	private final ClassificationRules rules;

	private final Spend spend;

	/**
	 * Where each quota scope's capacity comes from on this pod: local parts or leases.
	 */
	private final SupplySource supplies;

	private final OverloadControl overload;

	/** First-token hedging of streams, or {@code null} when it is off. */
	private final @Nullable Hedges hedges;

	LlmResilience(LlmResilienceBuilder builder, TargetRegistry registry, StateChanges events) {
		UnclassifiedListener unclassified = UnclassifiedListeners.guarded(builder.unclassified);
		LongSupplier nanoTime = CallContext.nanoTimeOf(builder.clock);
		BucketSource buckets = (builder.buckets != null) ? builder.buckets : BucketSource.local(nanoTime);
		this.supplies = builder.poolSupplies(nanoTime, SupplySource.of(buckets));
		this.context = new CallContext(builder.clock, nanoTime, builder.retry,
				new Backoff(builder.retry.backoffBase(), builder.retry.backoffMax(), builder.random),
				builder.extractors, builder.unknownExceptions, unclassified, CallObservers.shared(builder.observer),
				builder.timeouts.call(), new ProviderOverloads(builder.clock, builder.overload, events),
				new Pools(builder.pools, this.supplies, events), new AnswerBookkeeping(), builder.tracing);
		this.scheduler = builder.scheduler;
		this.hedges = builder.hedging.enabled() ? new Hedges(builder.hedging, nanoTime) : null;
		this.alarms = (builder.scheduler instanceof CoalescingTimer timer && CallContext.isSystemTime(builder.clock))
				? timer : null;
		ProviderClassifiers classifiers = (builder.classifiers != null) ? builder.classifiers : ProviderClassifiers
			.builtIn(new ClassifierSettings(builder.clock, ClassifierSettings.DEFAULT_QUOTA_THRESHOLD, unclassified));
		this.rules = builder.rules;
		this.rules.knownProviders(classifiers.providerIds());
		// Every edit of the rules is a state change like any other: a log line, a count,
		// an entry in the recent list, an application event.
		this.rules.addListener((edit) -> events.publish(StateChange.Kind.CLASSIFICATION_RULES_EDITED,
				"classification.rules", edit.describe(), null));
		Breakers breakers = new Breakers(builder.clock, events, builder.circuitBreakers);
		ThrottleGate gate = new ThrottleGate(builder.clock, builder.throttle, events);
		Accounts accounts = new Accounts(builder.clock, builder.accounts, events);
		FleetSync fleet = (builder.fleetStore != null && builder.fleetSettings != null)
				? new FleetSync(builder.fleetSettings, builder.fleetStore, builder.clock, events, breakers, gate,
						accounts, registry, builder.fleetPod, builder.random, this.rules)
				: null;
		this.fleet = (fleet != null) ? fleet : Fleet.NONE;
		Spend spend = new Spend(builder.spend, builder.clock, events);
		this.spend = spend;
		this.overload = new OverloadControl(builder.concurrency, builder.clientThrottling, nanoTime, builder.random,
				events);
		this.targets = new TargetRuntimes(builder, registry, this.context, classifiers, breakers, gate, accounts,
				this.fleet, spend, this.overload, events);
		if (fleet != null) {
			fleet.shareSpend(spend);
			fleet.sharePools(this.context.pools());
			// Every breaker exists now: link them, and learn the fleet's state before the
			// first call.
			fleet.start();
		}
	}

	/** Build one without Spring: targets, chains and settings, each with its default. */
	public static LlmResilienceBuilder builder() {
		return new LlmResilienceBuilder();
	}

	// Reactive --------------------------------------------------------------------------

	/** Run a reactive call through a chain. */
	public <T> Mono<T> execute(String chain, TargetCall<T> call) {
		return execute(chain, CallOptions.NONE, call);
	}

	/** Run a reactive call through a chain within a deadline. */
	public <T> Mono<T> execute(String chain, Duration deadline, TargetCall<T> call) {
		return execute(chain, CallOptions.deadline(deadline), call);
	}

	/**
	 * Run a reactive call through a chain. The Mono fails with
	 * {@link LlmUnavailableException} when no target could serve and with
	 * {@link LlmRejectedException} when the provider rejected the request itself.
	 */
	public <T> Mono<T> execute(String chain, CallOptions options, TargetCall<T> call) {
		Objects.requireNonNull(chain, "chain");
		Objects.requireNonNull(options, "options");
		Objects.requireNonNull(call, "call");
		return Mono.deferContextual((reactor) -> {
			TargetRuntime[] targets = this.targets.chain(chain);
			HedgeRace<T> hedged = hedgedCall(chain, targets, options, call, reactor);
			if (hedged != null) {
				return traced(hedged.primaryRun(), hedged.next());
			}
			ChainRun run = new ChainRun(this.context, chain, targets, options, false, reactor);
			return traced(run, next(run, call));
		});
	}

	/**
	 * Run a reactive call through a chain, with a degraded answer when no target can
	 * serve: where the Mono would fail with {@link LlmUnavailableException}, it answers
	 * with the fallback's answer instead (see {@link LlmFallback}). It still fails with
	 * {@link LlmRejectedException} when the provider rejected the request itself.
	 */
	public <T> Mono<T> execute(String chain, CallOptions options, TargetCall<T> call,
			LlmFallback<? extends T> fallback) {
		Objects.requireNonNull(chain, "chain");
		Objects.requireNonNull(options, "options");
		Objects.requireNonNull(call, "call");
		Objects.requireNonNull(fallback, "fallback");
		return Mono.deferContextual((reactor) -> {
			TargetRuntime[] targets = this.targets.chain(chain);
			HedgeRace<T> hedged = hedgedCall(chain, targets, options, call, reactor);
			ChainRun run = (hedged != null) ? hedged.primaryRun()
					: new ChainRun(this.context, chain, targets, options, false, reactor);
			Mono<T> walk = (hedged != null) ? hedged.next() : next(run, call);
			return traced(run, walk.onErrorResume(run::isExhaustion, (error) -> degraded(run, error, fallback)));
		});
	}

	/**
	 * The call's walk raced against a hedge when hedging of calls is on and the chain has
	 * two failure domains; else {@code null}, and the call is walked as ever.
	 */
	private <T> @Nullable HedgeRace<T> hedgedCall(String chain, TargetRuntime[] targets, CallOptions options,
			TargetCall<T> call, ContextView reactor) {
		Hedges hedges = this.hedges;
		if (hedges == null || !hedges.settings().calls() || !HedgeRace.hedgeable(targets)) {
			return null;
		}
		return new HedgeRace<>(this.context, hedges, this.scheduler, chain, targets, options, false,
				(run, started) -> next(run, (attempt) -> {
					started.accept(attempt);
					return call.call(attempt);
				}).flux(), this.context.tracing().start(chain, reactor));
	}

	/**
	 * The fallback's answer, asked on a worker thread: the chain may have run out on a
	 * timer's thread, which a fallback reading a cache or a store must not hold.
	 */
	private static <T> Mono<T> degraded(ChainRun run, Throwable unavailable, LlmFallback<? extends T> fallback) {
		return Mono.<T>fromCallable(() -> degrade(run, (LlmUnavailableException) unavailable, fallback))
			.subscribeOn(Schedulers.boundedElastic());
	}

	/**
	 * Run a reactive call against one target, without a chain: the same gate, account,
	 * breaker, classification and retries, no failover.
	 */
	public <T> Mono<T> executeOnTarget(String target, CallOptions options, TargetCall<T> call) {
		Objects.requireNonNull(target, "target");
		Objects.requireNonNull(options, "options");
		Objects.requireNonNull(call, "call");
		return Mono.deferContextual((reactor) -> {
			ChainRun run = new ChainRun(this.context, target, this.targets.single(target), options, false, reactor);
			return traced(run, next(run, call));
		});
	}

	private <T> Mono<T> next(ChainRun run, TargetCall<T> call) {
		return next(run, run.nextTarget(), call);
	}

	private <T> Mono<T> next(ChainRun run, @Nullable TargetRuntime target, TargetCall<T> call) {
		if (target != null) {
			return attempt(run, target, call);
		}
		long wait = run.releaseWait();
		if (wait >= 0) {
			return waitRelease(run, wait).then(Mono.defer(() -> next(run, run.afterWait(), call)));
		}
		return Mono.error(run.unavailable(null));
	}

	/**
	 * Wait for a rate limit to clear on the engine's scheduler, never on the caller's
	 * thread; a cancelled wait gives its place in the queue back.
	 */
	private Mono<Long> waitRelease(ChainRun run, long nanos) {
		return Mono.delay(Duration.ofNanos(nanos), this.scheduler).doOnCancel(run::cancelWait);
	}

	private <T> Mono<T> attempt(ChainRun run, TargetRuntime target, TargetCall<T> call) {
		Attempt attempt = run.begin(target);
		if (attempt == null) {
			return Mono.error(run.unavailable("deadline exceeded"));
		}
		Mono<T> source;
		try {
			try (AttemptScope.Opened scope = attempt.openScope()) {
				source = Objects.requireNonNull(call.call(attempt), "TargetCall returned null");
			}
		}
		catch (Throwable ex) {
			// Checked exceptions thrown sneakily, AssertionErrors: whatever the call
			// function throws goes the way of an error signal, so that its permit is
			// settled.
			source = Mono.error(thrown(target, ex));
		}
		if (run.traced()) {
			source = source.contextWrite(attempt::inReactor);
		}
		return new TimedAttempt<>(source, run, target, attempt, this.scheduler, this.alarms)
			.onErrorResume((error) -> switch (run.failed(target, attempt, error)) {
				case RETRY -> Mono.delay(Duration.ofNanos(run.delayNanos()), this.scheduler)
					.then(Mono.defer(() -> next(run, run.afterBackoff(target), call)));
				case NEXT_TARGET -> next(run, call);
				case STOP -> Mono.<T>error(run.stopError());
			});
	}

	// Streaming -------------------------------------------------------------------------

	/** Run a streaming call through a chain. */
	public <T> Flux<T> stream(String chain, StreamingTargetCall<T> call) {
		return stream(chain, CallOptions.NONE, call);
	}

	/**
	 * Run a streaming call through a chain. Until the first element reaches the
	 * subscriber, the call is handled like a non-streaming one (skips, retries, failover,
	 * the deadline), with the target's first-token timeout as the attempt's limit. After
	 * it, the stream may run as long as elements keep coming within the stall timeout; a
	 * failure then ends the Flux with {@link LlmStreamInterruptedException} and is never
	 * restarted on another target. Cancelling is neither a success nor a failure.
	 */
	public <T> Flux<T> stream(String chain, CallOptions options, StreamingTargetCall<T> call) {
		Objects.requireNonNull(chain, "chain");
		Objects.requireNonNull(options, "options");
		Objects.requireNonNull(call, "call");
		return Flux.deferContextual((reactor) -> {
			TargetRuntime[] targets = this.targets.chain(chain);
			HedgeRace<T> hedged = hedged(chain, targets, options, call, reactor);
			if (hedged != null) {
				return traced(hedged.primaryRun(), hedged);
			}
			ChainRun run = new ChainRun(this.context, chain, targets, options, true, reactor);
			return traced(run, nextStream(run, call));
		});
	}

	/**
	 * Run a streaming call through a chain, with a degraded answer when no target can
	 * serve before the first element: where the Flux would fail with
	 * {@link LlmUnavailableException}, it emits the fallback's answer as its one element
	 * and completes (see {@link LlmFallback}). A stream that emitted an element is never
	 * completed by the fallback: its failure ends it as without one.
	 */
	public <T> Flux<T> stream(String chain, CallOptions options, StreamingTargetCall<T> call,
			LlmFallback<? extends T> fallback) {
		Objects.requireNonNull(chain, "chain");
		Objects.requireNonNull(options, "options");
		Objects.requireNonNull(call, "call");
		Objects.requireNonNull(fallback, "fallback");
		return Flux.deferContextual((reactor) -> {
			TargetRuntime[] targets = this.targets.chain(chain);
			HedgeRace<T> hedged = hedged(chain, targets, options, call, reactor);
			ChainRun run = (hedged != null) ? hedged.primaryRun()
					: new ChainRun(this.context, chain, targets, options, true, reactor);
			Flux<T> walk = (hedged != null) ? hedged : nextStream(run, call);
			return traced(run, walk.onErrorResume(run::isExhaustion, (error) -> degraded(run, error, fallback).flux()));
		});
	}

	/**
	 * The call's walk raced against a hedge when hedging is on and the chain has two
	 * failure domains; else {@code null}, and the call is walked as ever.
	 */
	private <T> @Nullable HedgeRace<T> hedged(String chain, TargetRuntime[] targets, CallOptions options,
			StreamingTargetCall<T> call, ContextView reactor) {
		Hedges hedges = this.hedges;
		if (hedges == null || !HedgeRace.hedgeable(targets)) {
			return null;
		}
		return new HedgeRace<>(this.context, hedges, this.scheduler, chain, targets, options, true,
				(run, started) -> nextStream(run, (attempt) -> {
					started.accept(attempt);
					return call.call(attempt);
				}), this.context.tracing().start(chain, reactor));
	}

	private <T> Flux<T> nextStream(ChainRun run, StreamingTargetCall<T> call) {
		return nextStream(run, run.nextTarget(), call);
	}

	private <T> Flux<T> nextStream(ChainRun run, @Nullable TargetRuntime target, StreamingTargetCall<T> call) {
		if (target != null) {
			return streamAttempt(run, target, call);
		}
		long wait = run.releaseWait();
		if (wait >= 0) {
			return waitRelease(run, wait).thenMany(Flux.defer(() -> nextStream(run, run.afterWait(), call)));
		}
		return Flux.error(run.unavailable(null));
	}

	private <T> Flux<T> streamAttempt(ChainRun run, TargetRuntime target, StreamingTargetCall<T> call) {
		Attempt attempt = run.begin(target);
		if (attempt == null) {
			return Flux.error(run.unavailable("deadline exceeded"));
		}
		long start = attempt.startNanos();
		StreamProgress progress = new StreamProgress();
		Flux<T> source;
		try {
			try (AttemptScope.Opened scope = attempt.openScope()) {
				source = Objects.requireNonNull(call.call(attempt), "StreamingTargetCall returned null");
			}
		}
		catch (Throwable ex) {
			source = Flux.error(thrown(target, ex));
		}
		if (run.traced()) {
			source = source.contextWrite(attempt::inReactor);
		}
		Duration stall = target.stall();
		return source
			.timeout(Mono.delay(attempt.timeout(), this.scheduler), (item) -> Mono.delay(stall, this.scheduler))
			.doOnNext((item) -> {
				if (progress.received++ == 0) {
					progress.firstNanos = run.now() - start;
				}
			})
			.doOnCancel(() -> run.cancelled(target, attempt))
			.doOnComplete(() -> {
				if (attempt.settle(State.ANSWERED)) {
					long end = run.now();
					run.succeeded(target, attempt, start, (progress.received > 0) ? start + progress.firstNanos : end);
				}
			})
			.onErrorResume((error) -> {
				if (!attempt.settle(State.ANSWERED)) {
					return Flux.error(error);
				}
				long nanos = run.now() - start;
				if (progress.received > 0) {
					return Flux.error(run.interrupted(target, error, progress.received, progress.firstNanos, nanos));
				}
				return switch (run.failed(target, error, nanos)) {
					case RETRY -> Mono.delay(Duration.ofNanos(run.delayNanos()), this.scheduler)
						.thenMany(Flux.defer(() -> nextStream(run, run.afterBackoff(target), call)));
					case NEXT_TARGET -> nextStream(run, call);
					case STOP -> Flux.error(run.stopError());
				};
			});
	}

	/** How far one streaming attempt got; touched only by its serialized signals. */
	private static final class StreamProgress {

		long received;

		long firstNanos;

	}

	// Blocking --------------------------------------------------------------------------

	/** Run a blocking call through a chain on the calling thread. */
	public <T> T call(String chain, BlockingTargetCall<T> call) {
		return call(chain, CallOptions.NONE, call);
	}

	/** Run a blocking call through a chain within a deadline. */
	public <T> T call(String chain, Duration deadline, BlockingTargetCall<T> call) {
		return call(chain, CallOptions.deadline(deadline), call);
	}

	/**
	 * Run a blocking call through a chain on the calling thread. An attempt that outlives
	 * its timeout is interrupted (clients such as the JDK's {@code HttpClient} stop on
	 * interrupt); pass {@link Attempt#timeout()} to your client as well.
	 * @throws LlmUnavailableException when no target could serve
	 * @throws LlmRejectedException when the provider rejected the request itself
	 */
	public <T> T call(String chain, CallOptions options, BlockingTargetCall<T> call) {
		Objects.requireNonNull(chain, "chain");
		Objects.requireNonNull(options, "options");
		Objects.requireNonNull(call, "call");
		return traced(new ChainRun(this.context, chain, this.targets.chain(chain), options), call);
	}

	/**
	 * Run a blocking call through a chain on the calling thread, with a degraded answer
	 * when no target can serve: where the call would throw
	 * {@link LlmUnavailableException}, it returns the fallback's answer, asked on the
	 * calling thread (see {@link LlmFallback}).
	 * @throws LlmRejectedException when the provider rejected the request itself
	 */
	public <T> T call(String chain, CallOptions options, BlockingTargetCall<T> call,
			LlmFallback<? extends T> fallback) {
		Objects.requireNonNull(chain, "chain");
		Objects.requireNonNull(options, "options");
		Objects.requireNonNull(call, "call");
		Objects.requireNonNull(fallback, "fallback");
		ChainRun run = new ChainRun(this.context, chain, this.targets.chain(chain), options);
		T value;
		try {
			value = degradedRun(run, call, fallback);
		}
		catch (RuntimeException | Error ex) {
			run.ended(ex);
			throw ex;
		}
		run.ended(null);
		return value;
	}

	private <T> T degradedRun(ChainRun run, BlockingTargetCall<T> call, LlmFallback<? extends T> fallback) {
		try {
			return run(run, call);
		}
		catch (LlmUnavailableException ex) {
			if (!run.isExhaustion(ex)) {
				throw ex;
			}
			try {
				return degrade(run, ex, fallback);
			}
			catch (Exception failure) {
				throw unchecked(failure);
			}
		}
	}

	/** A blocking call whose trace, when it has one, is told how it ended. */
	private <T> T traced(ChainRun run, BlockingTargetCall<T> call) {
		if (!run.traced()) {
			return run(run, call);
		}
		T value;
		try {
			value = run(run, call);
		}
		catch (RuntimeException | Error ex) {
			run.ended(ex);
			throw ex;
		}
		run.ended(null);
		return value;
	}

	/** A reactive call whose trace, when it has one, is told how it ended. */
	private static <T> Mono<T> traced(ChainRun run, Mono<T> call) {
		if (!run.traced()) {
			return call;
		}
		return call.doOnSuccess((value) -> run.ended(null))
			.doOnError(run::ended)
			.doOnCancel(() -> run.ended(new CancellationException("Cancelled")));
	}

	/** A streaming call whose trace, when it has one, is told how it ended. */
	private static <T> Flux<T> traced(ChainRun run, Flux<T> call) {
		if (!run.traced()) {
			return call;
		}
		return call.doOnComplete(() -> run.ended(null))
			.doOnError(run::ended)
			.doOnCancel(() -> run.ended(new CancellationException("Cancelled")));
	}

	/**
	 * Run a blocking call against one target, without a chain: the same gate, account,
	 * breaker, classification and retries, no failover.
	 */
	public <T> T callOnTarget(String target, CallOptions options, BlockingTargetCall<T> call) {
		Objects.requireNonNull(target, "target");
		Objects.requireNonNull(options, "options");
		Objects.requireNonNull(call, "call");
		return traced(new ChainRun(this.context, target, this.targets.single(target), options), call);
	}

	private <T> T run(ChainRun run, BlockingTargetCall<T> call) {
		TargetRuntime target = run.nextTarget();
		while (true) {
			if (target == null) {
				long wait = run.releaseWait();
				if (wait < 0) {
					throw run.unavailable(null);
				}
				// The caller's own thread waits; nothing else is blocked.
				try {
					sleep(wait);
				}
				catch (RuntimeException ex) {
					run.cancelWait();
					throw ex;
				}
				target = run.afterWait();
				continue;
			}
			Attempt attempt = run.begin(target);
			if (attempt == null) {
				throw run.unavailable("deadline exceeded");
			}
			long timeoutNanos = attempt.timeout().toNanos();
			Disposable alarm;
			if (this.alarms != null) {
				alarm = this.alarms.arm(attempt, attempt.startNanos() + timeoutNanos, EXPIRY);
			}
			else {
				Thread caller = Thread.currentThread();
				alarm = this.scheduler.schedule(() -> EXPIRY.expire(attempt, caller), timeoutNanos,
						TimeUnit.NANOSECONDS);
			}
			T value = null;
			Throwable error = null;
			try (AttemptScope.Opened scope = attempt.openScope()) {
				value = call.call(attempt);
			}
			catch (Throwable ex) {
				error = thrown(target, ex);
			}
			boolean timedOut = !attempt.settle(State.ANSWERED);
			alarm.dispose();
			long end = run.now();
			long start = attempt.startNanos();
			long nanos = end - start;
			if (timedOut) {
				// The alarm has claimed the attempt: wait the instant until its interrupt
				// is delivered, then take the interrupt back so it does not leak to the
				// caller.
				while (attempt.state() != State.INTERRUPTED) {
					Thread.onSpinWait();
				}
				Thread.interrupted();
				if (error != null) {
					error = new TimeoutException(
							"Attempt on " + target.name() + " timed out after " + attempt.timeout());
				}
			}
			else if (error instanceof InterruptedException) {
				run.abandoned(target);
				Thread.currentThread().interrupt();
				throw (CancellationException) new CancellationException("Interrupted").initCause(error);
			}
			if (error == null) {
				run.succeeded(target, attempt, start, end);
				return value;
			}
			switch (run.failed(target, error, nanos)) {
				case RETRY -> {
					sleep(run.delayNanos());
					target = run.afterBackoff(target);
				}
				case NEXT_TARGET -> target = run.nextTarget();
				default -> throw unchecked(run.stopError());
			}
		}
	}

	private void sleep(long nanos) {
		if (nanos > 0) {
			Mono.delay(Duration.ofNanos(nanos), this.scheduler).block();
		}
	}

	// State and operations

	/**
	 * The earliest moment a target of the chain may serve, or now when one can.
	 * @throws IllegalArgumentException when no chain has that name
	 */
	public Instant availableAt(String chain) {
		return this.targets.availableAt(chain);
	}

	/**
	 * Whether a target could be called now: account, scope and breaker all allow it.
	 * @throws IllegalArgumentException when no target has that name
	 */
	public boolean isUsable(String target) {
		return this.targets.get(target).isUsable();
	}

	/**
	 * Classify an answer the way the engine would for the given target, with the target's
	 * provider classifier: for an adapter that sees a 2xx its client would not treat as
	 * an error (a refusal, an error envelope) and wants to know before handing it on.
	 * Never throws for a known target; a classifier that fails yields the status-only
	 * verdict.
	 * @param target the target's name
	 * @param response the provider's answer
	 * @return the verdict
	 */
	public Verdict classify(String target, ProviderResponse response) {
		Objects.requireNonNull(response, "response");
		return this.targets.get(target).classifier().classify(response);
	}

	/**
	 * Every target, chain, failure domain, quota scope and account as they are now: a
	 * read-only copy from one reading of the clock.
	 */
	public ResilienceState state() {
		return this.targets.state();
	}

	/**
	 * Overload control: each failure domain's limit on calls in flight and each provider
	 * account's local refusals (for meters; {@link #state()} carries them per target).
	 */
	public OverloadControl overloadControl() {
		return this.overload;
	}

	/**
	 * The quota pools: calls waiting per pool and, when partitioning is on, each quota
	 * scope's capacity and what each pool holds of it.
	 */
	public PoolState pools() {
		return this.context.pools().state();
	}

	/**
	 * Each failure domain's spend now, by domain: its current window against the median
	 * of its past ones; empty when the spend trigger is off.
	 */
	public Map<String, SpendState> spend() {
		if (!this.spend.settings().enabled()) {
			return Map.of();
		}
		Map<String, SpendState> spend = new TreeMap<>();
		this.spend.all().forEach((domain) -> spend.put(domain.domain(), domain.snapshot()));
		return Collections.unmodifiableMap(spend);
	}

	/**
	 * How the fleet looks from this pod ({@link FleetState#LOCAL} without fleet mode);
	 * cheaper than {@link #state()}.
	 */
	public FleetState fleet() {
		return this.fleet.state();
	}

	/**
	 * The user's classification rules in force, tried before each provider's table: read
	 * them, or edit them (each edit applies from the next answer and is a state change).
	 */
	public ClassificationRules classificationRules() {
		return this.rules;
	}

	/** The commands an operator may give: breakers, accounts, quota scopes, chains. */
	public Operator operator() {
		return this.targets;
	}

	/** The breaker of a target's failure domain, for this package's tests. */
	Breaker breaker(String target) {
		return this.targets.get(target).breaker();
	}

	/**
	 * Stop sharing state with the fleet (fleet mode only; the store's connection belongs
	 * to whoever made it). Calls keep working on this pod's own state.
	 */
	@Override
	public void close() {
		this.fleet.close();
		if (this.supplies instanceof LeasedSupplies leases) {
			// What this pod leased and did not use goes back to the fleet.
			leases.release();
		}
	}

	/**
	 * No target could serve: ask the fallback for a degraded answer. Nothing here touches
	 * a target: the targets' verdicts were recorded when they were given.
	 * @return the fallback's answer
	 * @throws Exception what the fallback threw (or a {@link NullPointerException} for a
	 * {@code null} answer), the unavailable exception added as suppressed
	 */
	private static <T> T degrade(ChainRun run, LlmUnavailableException unavailable, LlmFallback<? extends T> fallback)
			throws Exception {
		CallObserver observer = run.observer();
		T answer;
		try {
			answer = fallback.answer(new Degradation(run.chain(), unavailable));
			if (answer == null) {
				throw new NullPointerException("The fallback of chain '" + run.chain() + "' returned null");
			}
		}
		catch (Throwable ex) {
			if (ex instanceof VirtualMachineError fatal) {
				throw fatal;
			}
			// A fallback that declines rethrows the exception it was given.
			if (ex != unavailable) {
				ex.addSuppressed(unavailable);
			}
			observer.onDegraded(run.chain(), unavailable, ex, run.elapsedNanos());
			throw ex;
		}
		observer.onDegraded(run.chain(), unavailable, null, run.elapsedNanos());
		return answer;
	}

	/**
	 * A call function threw instead of returning its publisher. A fatal JVM error (out of
	 * memory, stack overflow) is not caught: give the permit back and let it go. Anything
	 * else is the attempt's error, settled like any other.
	 */
	private static Throwable thrown(TargetRuntime target, Throwable error) {
		if (error instanceof VirtualMachineError fatal) {
			target.release();
			throw fatal;
		}
		return error;
	}

	/**
	 * An error for a blocking caller: unchecked ones as they are, checked ones wrapped.
	 */
	private static RuntimeException unchecked(Throwable error) {
		if (error instanceof RuntimeException runtime) {
			return runtime;
		}
		if (error instanceof Error fatal) {
			throw fatal;
		}
		return new CompletionException(error);
	}

}
