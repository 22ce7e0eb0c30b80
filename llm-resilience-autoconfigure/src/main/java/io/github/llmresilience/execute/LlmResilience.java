package io.github.llmresilience.execute;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

import io.github.llmresilience.breaker.Breaker;
import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.breaker.Breakers;
import io.github.llmresilience.classify.ClassifierSettings;
import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.ProviderClassifiers;
import io.github.llmresilience.classify.ProviderErrorClassifier;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.UnclassifiedListener;
import io.github.llmresilience.classify.UnclassifiedListeners;
import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.event.StateChangeListener;
import io.github.llmresilience.event.StateChanges;
import io.github.llmresilience.retry.Backoff;
import io.github.llmresilience.retry.RetryBudget;
import io.github.llmresilience.retry.RetrySettings;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.target.TargetRegistry;
import io.github.llmresilience.throttle.AccountSettings;
import io.github.llmresilience.throttle.Accounts;
import io.github.llmresilience.throttle.ThrottleGate;
import io.github.llmresilience.throttle.ThrottleSettings;
import io.github.llmresilience.timeout.CoalescingTimer;
import io.github.llmresilience.timeout.MeasuredTimeout;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

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
public final class LlmResilience {

	private final Clock clock;

	private final LongSupplier nanoTime;

	private final Scheduler scheduler;

	private final TargetRegistry registry;

	private final Breakers breakers;

	private final ThrottleGate gate;

	private final Accounts accounts;

	private final RetrySettings retrySettings;

	private final Backoff backoff;

	private final ErrorExtractors extractors;

	private final CallObserver observer;

	private final UnclassifiedListener unclassified;

	private final UnknownExceptions unknownExceptions;

	private final TimeoutSettings timeouts;

	private final ThrottleSettings throttle;

	private final Map<String, TargetRuntime> runtimes;

	private volatile Map<String, TargetRuntime[]> chains;

	private final Map<String, TargetRuntime[]> singles;

	private LlmResilience(Builder builder, TargetRegistry registry, StateChanges events) {
		this.clock = builder.clock;
		this.nanoTime = nanoTimeOf(builder.clock);
		this.scheduler = builder.scheduler;
		this.registry = registry;
		this.breakers = new Breakers(builder.clock, events);
		this.gate = new ThrottleGate(builder.clock, builder.throttle, events);
		this.accounts = new Accounts(builder.clock, builder.accounts, events);
		this.retrySettings = builder.retry;
		this.backoff = new Backoff(builder.retry.backoffBase(), builder.retry.backoffMax(), builder.random);
		this.extractors = builder.extractors;
		this.observer = GuardedCallObserver.of(builder.observer);
		this.unclassified = UnclassifiedListeners.guarded(builder.unclassified);
		this.unknownExceptions = builder.unknownExceptions;
		this.timeouts = builder.timeouts;
		this.throttle = builder.throttle;
		ProviderClassifiers classifiers = (builder.classifiers != null) ? builder.classifiers
				: ProviderClassifiers.builtIn(new ClassifierSettings(builder.clock,
						ClassifierSettings.DEFAULT_QUOTA_THRESHOLD, this.unclassified));
		Map<String, TargetRuntime> byName = new LinkedHashMap<>();
		for (Target target : registry.targets().values()) {
			TargetOptions options = builder.targetOptions.getOrDefault(target.name(), TargetOptions.DEFAULTS);
			ProviderErrorClassifier classifier;
			try {
				classifier = new GuardedClassifier(classifiers.forVendor(target.provider()), this.unclassified);
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException("Target '" + target.name() + "': " + ex.getMessage(), ex);
			}
			BreakerSettings breakerSettings = (options.breaker() != null) ? options.breaker() : builder.breaker;
			String domain = failureDomain(target, builder.failureDomain);
			Breaker breaker = this.breakers.forDomain(domain, breakerSettings,
					(error) -> classifyError(classifier, error));
			TimeoutSettings timeouts = builder.timeouts;
			byName.put(target.name(), new TargetRuntime(target, classifier, breaker,
					this.gate.scope(target.quotaScope()), this.accounts.account(target.account()),
					RetryBudget.of(builder.clock, builder.retry),
					new MeasuredTimeout(orDefault(options.attemptTimeout(), timeouts.attempt()), timeouts.adaptive()),
					new MeasuredTimeout(orDefault(options.firstTokenTimeout(), timeouts.firstToken()),
							timeouts.adaptive()),
					orDefault(options.stallTimeout(), timeouts.stall())));
		}
		this.runtimes = Collections.unmodifiableMap(byName);
		Map<String, TargetRuntime[]> singles = new LinkedHashMap<>();
		byName.forEach((name, runtime) -> singles.put(name, new TargetRuntime[] { runtime }));
		this.singles = Collections.unmodifiableMap(singles);
		this.chains = resolveChains();
		registry.onChainEdited((name) -> this.chains = resolveChains());
	}

	public static Builder builder() {
		return new Builder();
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
		return Mono.defer(() -> {
			ChainRun run = new ChainRun(this, chain, resolve(chain), options);
			return next(run, call);
		});
	}

	/**
	 * Run a reactive call against one target, without a chain: the same gate, account,
	 * breaker, classification and retries, no failover.
	 */
	public <T> Mono<T> executeOnTarget(String target, CallOptions options, TargetCall<T> call) {
		Objects.requireNonNull(target, "target");
		Objects.requireNonNull(options, "options");
		Objects.requireNonNull(call, "call");
		return Mono.defer(() -> {
			ChainRun run = new ChainRun(this, target, single(target), options);
			return next(run, call);
		});
	}

	private <T> Mono<T> next(ChainRun run, TargetCall<T> call) {
		TargetRuntime target = run.nextTarget();
		return (target != null) ? attempt(run, target, call) : Mono.error(run.unavailable(null));
	}

	private <T> Mono<T> attempt(ChainRun run, TargetRuntime target, TargetCall<T> call) {
		Attempt attempt = run.begin(target);
		if (attempt == null) {
			return Mono.error(run.unavailable("deadline exceeded"));
		}
		long start = run.attemptStart();
		Mono<T> source;
		try {
			source = Objects.requireNonNull(call.call(attempt), "TargetCall returned null");
		}
		catch (Throwable ex) {
			// Checked exceptions thrown sneakily, AssertionErrors: whatever the call function
			// throws goes the way of an error signal, so that its permit is settled.
			source = Mono.error(fatalAfterRelease(target, ex));
		}
		return source.timeout(attempt.timeout(), this.scheduler)
			.doOnCancel(() -> {
				if (attempt.settle(0, 2)) {
					run.abandoned(target);
				}
			})
			.map((value) -> {
				if (attempt.settle(0, 1)) {
					run.succeeded(target, start, this.nanoTime.getAsLong());
				}
				return value;
			})
			.switchIfEmpty(Mono.fromRunnable(() -> {
				if (attempt.settle(0, 1)) {
					run.succeeded(target, start, this.nanoTime.getAsLong());
				}
			}))
			.onErrorResume((error) -> {
				if (!attempt.settle(0, 1)) {
					return Mono.error(error);
				}
				return switch (run.failed(target, error, this.nanoTime.getAsLong() - start)) {
					case RETRY -> retryAfterBackoff(run, target, call);
					case NEXT_TARGET -> next(run, call);
					case STOP -> Mono.<T>error(run.stopError());
				};
			});
	}

	private <T> Mono<T> retryAfterBackoff(ChainRun run, TargetRuntime target, TargetCall<T> call) {
		long delay = run.delayNanos();
		return Mono.delay(Duration.ofNanos(delay), this.scheduler).then(Mono.defer(() -> {
			this.observer.onBackoff(run.chain(), target.target(), delay);
			TargetRuntime next = run.retryTarget(target);
			return (next != null) ? attempt(run, next, call) : Mono.<T>error(run.unavailable(null));
		}));
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
		return Flux.defer(() -> nextStream(new ChainRun(this, chain, resolve(chain), options, true), call));
	}

	private <T> Flux<T> nextStream(ChainRun run, StreamingTargetCall<T> call) {
		TargetRuntime target = run.nextTarget();
		return (target != null) ? streamAttempt(run, target, call) : Flux.error(run.unavailable(null));
	}

	private <T> Flux<T> streamAttempt(ChainRun run, TargetRuntime target, StreamingTargetCall<T> call) {
		Attempt attempt = run.begin(target);
		if (attempt == null) {
			return Flux.error(run.unavailable("deadline exceeded"));
		}
		long start = run.attemptStart();
		StreamProgress progress = new StreamProgress();
		Flux<T> source;
		try {
			source = Objects.requireNonNull(call.call(attempt), "StreamingTargetCall returned null");
		}
		catch (Throwable ex) {
			source = Flux.error(fatalAfterRelease(target, ex));
		}
		Duration stall = target.stall();
		return source
			.timeout(Mono.delay(attempt.timeout(), this.scheduler), (item) -> Mono.delay(stall, this.scheduler))
			.doOnNext((item) -> {
				if (progress.received++ == 0) {
					progress.firstNanos = this.nanoTime.getAsLong() - start;
				}
			})
			.doOnCancel(() -> {
				if (attempt.settle(0, 2)) {
					run.abandoned(target);
				}
			})
			.doOnComplete(() -> {
				if (attempt.settle(0, 1)) {
					long end = this.nanoTime.getAsLong();
					run.succeeded(target, start, (progress.received > 0) ? start + progress.firstNanos : end);
				}
			})
			.onErrorResume((error) -> {
				if (!attempt.settle(0, 1)) {
					return Flux.error(error);
				}
				long nanos = this.nanoTime.getAsLong() - start;
				if (progress.received > 0) {
					return Flux.error(run.interrupted(target, error, progress.received, progress.firstNanos, nanos));
				}
				return switch (run.failed(target, error, nanos)) {
					case RETRY -> retryStreamAfterBackoff(run, target, call);
					case NEXT_TARGET -> nextStream(run, call);
					case STOP -> Flux.error(run.stopError());
				};
			});
	}

	private <T> Flux<T> retryStreamAfterBackoff(ChainRun run, TargetRuntime target, StreamingTargetCall<T> call) {
		long delay = run.delayNanos();
		return Mono.delay(Duration.ofNanos(delay), this.scheduler).thenMany(Flux.defer(() -> {
			this.observer.onBackoff(run.chain(), target.target(), delay);
			TargetRuntime next = run.retryTarget(target);
			return (next != null) ? streamAttempt(run, next, call) : Flux.<T>error(run.unavailable(null));
		}));
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
		return run(new ChainRun(this, chain, resolve(chain), options), call);
	}

	/**
	 * Run a blocking call against one target, without a chain: the same gate, account,
	 * breaker, classification and retries, no failover.
	 */
	public <T> T callOnTarget(String target, CallOptions options, BlockingTargetCall<T> call) {
		Objects.requireNonNull(target, "target");
		Objects.requireNonNull(options, "options");
		Objects.requireNonNull(call, "call");
		return run(new ChainRun(this, target, single(target), options), call);
	}

	private <T> T run(ChainRun run, BlockingTargetCall<T> call) {
		TargetRuntime target = run.nextTarget();
		while (true) {
			if (target == null) {
				throw run.unavailable(null);
			}
			Attempt attempt = run.begin(target);
			if (attempt == null) {
				throw run.unavailable("deadline exceeded");
			}
			long start = run.attemptStart();
			Thread caller = Thread.currentThread();
			Disposable alarm = this.scheduler.schedule(() -> {
				if (attempt.settle(0, 2)) {
					caller.interrupt();
					attempt.settled(3);
				}
			}, attempt.timeout().toNanos(), TimeUnit.NANOSECONDS);
			T value = null;
			Throwable error = null;
			try {
				value = call.call(attempt);
			}
			catch (Throwable ex) {
				error = fatalAfterRelease(target, ex);
			}
			boolean timedOut = !attempt.settle(0, 1);
			alarm.dispose();
			long end = this.nanoTime.getAsLong();
			long nanos = end - start;
			if (timedOut) {
				// The alarm has claimed the attempt: wait the instant until its interrupt is
				// delivered, then take the interrupt back so it does not leak to the caller.
				while (attempt.settled() != 3) {
					Thread.onSpinWait();
				}
				Thread.interrupted();
				if (error != null) {
					error = new TimeoutException("Attempt on " + target.name() + " timed out after " + attempt.timeout());
				}
			}
			else if (error instanceof InterruptedException) {
				run.abandoned(target);
				caller.interrupt();
				throw (CancellationException) new CancellationException("Interrupted").initCause(error);
			}
			if (error == null) {
				run.succeeded(target, start, end);
				return value;
			}
			switch (run.failed(target, error, nanos)) {
				case RETRY -> {
					sleep(run.delayNanos());
					this.observer.onBackoff(run.chain(), target.target(), run.delayNanos());
					target = run.retryTarget(target);
				}
				case NEXT_TARGET -> target = run.nextTarget();
				default -> throw ChainRun.unchecked(run.stopError());
			}
		}
	}

	private void sleep(long nanos) {
		if (nanos > 0) {
			Mono.delay(Duration.ofNanos(nanos), this.scheduler).block();
		}
	}

	// Shared by both drivers -------------------------------------------------------------

	/** Record a failure's verdict where it belongs: breaker, gate, account. */
	void record(TargetRuntime target, Verdict verdict, Throwable error, long nanos) {
		target.breaker().onFailure(nanos, verdict, error);
		sideEffects(target, verdict);
	}

	/** Gate the scope, park or lock the account, as the verdict says. */
	void sideEffects(TargetRuntime target, Verdict verdict) {
		String type = verdict.errorType().orElse(null);
		switch (verdict.outcome()) {
			case THROTTLED -> this.gate.close(target.scope(), verdict.waitHint().orElse(null), type);
			case QUOTA -> this.accounts.park(target.account(), verdict.waitHint().orElse(null), type);
			case CREDENTIAL -> this.accounts.credentialFailure(target.account(), type);
			default -> {
			}
		}
	}

	/**
	 * A fatal JVM error (out of memory, stack overflow) is not caught: give the permit
	 * back and let it go. Anything else is the attempt's error, settled like any other.
	 */
	private static Throwable fatalAfterRelease(TargetRuntime target, Throwable error) {
		if (error instanceof VirtualMachineError fatal) {
			target.breaker().release();
			throw fatal;
		}
		return error;
	}

	/** The backoff before retry {@code n}: the vendor's hint when it gave one, else full jitter. */
	long backoffNanos(int retry, Verdict verdict) {
		Duration hint = verdict.waitHint().orElse(null);
		if (hint != null) {
			return Math.min(hint.toNanos(), this.retrySettings.backoffMax().toNanos());
		}
		return this.backoff.delay(retry).toNanos();
	}

	/**
	 * When a target may serve again: after its account's park or lock, its scope's gate
	 * and its breaker's open time; a target that just failed, or whose breaker has no
	 * trial free, gets at least a backoff (the vendor's hint, cut to
	 * {@code throttle.max-wait}, when longer). All from one reading of the clock, so the
	 * answer is never already in the past.
	 */
	Instant availableAt(TargetRuntime target, Instant now, Verdict lastVerdict) {
		Instant at = now;
		at = later(at, target.account().availableAt());
		at = later(at, target.scope().closedUntil());
		Breaker breaker = target.breaker();
		Instant breakerAt = breaker.availableAt(now);
		at = later(at, (breakerAt != null) ? breakerAt : heldUntil(target, now));
		if (at.equals(now) && (lastVerdict != null || !breaker.isUsable())) {
			Duration pause = (lastVerdict != null) ? lastVerdict.waitHint().orElse(Duration.ZERO) : Duration.ZERO;
			if (pause.compareTo(this.throttle.maxWait()) > 0) {
				pause = this.throttle.maxWait();
			}
			Duration floor = this.retrySettings.backoffBase().isZero() ? Duration.ofSeconds(1)
					: this.retrySettings.backoffBase();
			at = now.plus((pause.compareTo(floor) > 0) ? pause : floor);
		}
		return at;
	}

	/**
	 * When to look again at a breaker an operator holds open: no time can be promised, so
	 * its failure domain's longest open duration, a bounded instant a job queue can use.
	 */
	Instant heldUntil(TargetRuntime target, Instant now) {
		return now.plus(target.breaker().settings().openDurationMax());
	}

	private static Instant later(Instant a, Instant b) {
		return b.isAfter(a) ? b : a;
	}

	/**
	 * The earliest moment a target of the chain may serve, or now when one can.
	 */
	public Instant availableAt(String chain) {
		Instant now = this.clock.instant();
		Instant earliest = null;
		for (TargetRuntime target : resolve(chain)) {
			Instant at = availableAt(target, now, null);
			if (earliest == null || at.isBefore(earliest)) {
				earliest = at;
			}
		}
		return (earliest != null) ? earliest : now;
	}

	/** Whether a target could be called now: account, scope and breaker all allow it. */
	public boolean isUsable(String target) {
		TargetRuntime runtime = runtime(target);
		return this.accounts.isUsable(runtime.account()) && this.gate.isOpen(runtime.scope())
				&& runtime.breaker().isUsable();
	}

	/**
	 * Classify an answer the way the engine would for the given target, with the target's
	 * vendor classifier: for an adapter that sees a 2xx its client would not treat as an
	 * error (a refusal, an error envelope) and wants to know before handing it on. Never
	 * throws for a known target; a classifier that fails yields the status-only verdict.
	 * @param target the target's name
	 * @param response the provider's answer
	 * @return the verdict
	 */
	public Verdict classify(String target, ProviderResponse response) {
		Objects.requireNonNull(response, "response");
		return runtime(target).classifier().classify(response);
	}

	// Accessors for operations, health and metrics ---------------------------------------

	public TargetRegistry registry() {
		return this.registry;
	}

	public Breakers breakers() {
		return this.breakers;
	}

	/** The breaker of a target's failure domain. */
	public Breaker breaker(String target) {
		return runtime(target).breaker();
	}

	public ThrottleGate gate() {
		return this.gate;
	}

	public Accounts accounts() {
		return this.accounts;
	}

	/** A target's attempt timeout: configured, or measured from its successful calls. */
	public MeasuredTimeout.Snapshot attemptTimeout(String target) {
		return runtime(target).attemptTimeout().snapshot();
	}

	/** A target's time-to-first-token limit: configured, or measured from its streams. */
	public MeasuredTimeout.Snapshot firstTokenTimeout(String target) {
		return runtime(target).firstTokenTimeout().snapshot();
	}

	/** The retry budget of a target. */
	public RetryBudget retryBudget(String target) {
		return runtime(target).budget();
	}

	public Clock clock() {
		return this.clock;
	}

	RetrySettings retrySettings() {
		return this.retrySettings;
	}

	TimeoutSettings timeouts() {
		return this.timeouts;
	}

	UnknownExceptions unknownExceptions() {
		return this.unknownExceptions;
	}

	ErrorExtractors extractors() {
		return this.extractors;
	}

	CallObserver observer() {
		return this.observer;
	}

	UnclassifiedListener unclassified() {
		return this.unclassified;
	}

	long nanoTime() {
		return this.nanoTime.getAsLong();
	}

	private TargetRuntime runtime(String target) {
		TargetRuntime runtime = this.runtimes.get(target);
		if (runtime == null) {
			throw new IllegalArgumentException("No target named '" + target + "'; known targets: "
					+ this.runtimes.keySet());
		}
		return runtime;
	}

	private TargetRuntime[] resolve(String chain) {
		TargetRuntime[] targets = this.chains.get(chain);
		if (targets == null) {
			throw new IllegalArgumentException("No chain named '" + chain + "'; known chains: " + this.chains.keySet());
		}
		return targets;
	}

	private TargetRuntime[] single(String target) {
		TargetRuntime[] targets = this.singles.get(target);
		if (targets == null) {
			throw new IllegalArgumentException("No target named '" + target + "'; known targets: "
					+ this.singles.keySet());
		}
		return targets;
	}

	private Map<String, TargetRuntime[]> resolveChains() {
		Map<String, TargetRuntime[]> resolved = new LinkedHashMap<>();
		this.registry.chains().forEach((name, members) -> resolved.put(name,
				members.stream().map(this.runtimes::get).toArray(TargetRuntime[]::new)));
		return Collections.unmodifiableMap(resolved);
	}

	/**
	 * For an exception that reaches a breaker unclassified (a caller recording on the
	 * Resilience4j breaker itself): as the engine would read it.
	 */
	private Verdict classifyError(ProviderErrorClassifier classifier, Throwable error) {
		ProviderResponse response = this.extractors.extract(error);
		if (response != null) {
			return classifier.classify(response);
		}
		return (this.unknownExceptions == UnknownExceptions.PROVIDER) ? Verdict.of(Outcome.AVAILABILITY)
				: Verdict.of(Outcome.REQUEST);
	}

	static String failureDomain(Target target, List<String> dimensions) {
		StringBuilder key = new StringBuilder();
		for (String dimension : dimensions) {
			if (key.length() > 0) {
				key.append('/');
			}
			key.append(switch (dimension) {
				case "provider" -> target.provider();
				case "model" -> target.model();
				case "region" -> target.region();
				case "account" -> target.account();
				case "target" -> target.name();
				default -> throw new IllegalArgumentException("Unknown failure-domain dimension '" + dimension
						+ "'; allowed: provider, model, region, account, target");
			});
		}
		return key.toString();
	}

	/**
	 * Elapsed times need a monotonic source: the system clock gets {@link System#nanoTime()};
	 * any other clock (a test's) is its own time source.
	 */
	private static LongSupplier nanoTimeOf(Clock clock) {
		if (clock.withZone(ZoneOffset.UTC).equals(Clock.systemUTC())) {
			return System::nanoTime;
		}
		return () -> {
			Instant now = clock.instant();
			return now.getEpochSecond() * 1_000_000_000L + now.getNano();
		};
	}

	private static Duration orDefault(Duration value, Duration fallback) {
		return (value != null) ? value : fallback;
	}

	/**
	 * Per-target settings that differ from the defaults; {@code null} takes the default.
	 *
	 * @param breaker the breaker settings of the target's failure domain
	 * @param attemptTimeout the attempt timeout
	 * @param firstTokenTimeout the time allowed to a stream's first element
	 * @param stallTimeout the longest gap between a stream's elements
	 */
	public record TargetOptions(BreakerSettings breaker, Duration attemptTimeout, Duration firstTokenTimeout,
			Duration stallTimeout) {

		public static final TargetOptions DEFAULTS = new TargetOptions(null, null, null, null);

		public TargetOptions(BreakerSettings breaker, Duration attemptTimeout) {
			this(breaker, attemptTimeout, null, null);
		}

	}

	/** Builds an {@link LlmResilience} without Spring. */
	public static final class Builder {

		private Clock clock = Clock.systemUTC();

		private Scheduler scheduler = CoalescingTimer.shared();

		private final List<Target> targets = new ArrayList<>();

		private final Map<String, TargetOptions> targetOptions = new LinkedHashMap<>();

		private final Map<String, List<String>> chains = new LinkedHashMap<>();

		private BreakerSettings breaker = BreakerSettings.defaults();

		private List<String> failureDomain = List.of("provider", "model", "region");

		private RetrySettings retry = RetrySettings.defaults();

		private ThrottleSettings throttle = ThrottleSettings.defaults();

		private AccountSettings accounts = AccountSettings.defaults();

		private TimeoutSettings timeouts = TimeoutSettings.defaults();

		private ProviderClassifiers classifiers;

		private ErrorExtractors extractors = ErrorExtractors.standard();

		private CallObserver observer = CallObserver.NONE;

		private UnclassifiedListener unclassified = UnclassifiedListener.NONE;

		private UnknownExceptions unknownExceptions = UnknownExceptions.CALLER;

		private final List<StateChangeListener> listeners = new ArrayList<>();

		private DoubleSupplier random = () -> java.util.concurrent.ThreadLocalRandom.current().nextDouble();

		private StateChanges events;

		private Builder() {
		}

		/** The clock for every expiry and measurement. */
		public Builder clock(Clock clock) {
			this.clock = Objects.requireNonNull(clock);
			return this;
		}

		/**
		 * The scheduler for attempt timeouts and backoff delays; by default the shared
		 * {@link CoalescingTimer}, which arms and disarms a timeout without a lock.
		 */
		public Builder scheduler(Scheduler scheduler) {
			this.scheduler = Objects.requireNonNull(scheduler);
			return this;
		}

		public Builder target(Target target) {
			return target(target, TargetOptions.DEFAULTS);
		}

		public Builder target(Target target, TargetOptions options) {
			this.targets.add(Objects.requireNonNull(target));
			this.targetOptions.put(target.name(), Objects.requireNonNull(options));
			return this;
		}

		public Builder chain(String name, String... targets) {
			return chain(name, List.of(targets));
		}

		public Builder chain(String name, List<String> targets) {
			this.chains.put(name, List.copyOf(targets));
			return this;
		}

		public Builder breaker(BreakerSettings breaker) {
			this.breaker = Objects.requireNonNull(breaker);
			return this;
		}

		/** Which target attributes name a failure domain: provider, model, region, account, target. */
		public Builder failureDomain(List<String> dimensions) {
			this.failureDomain = List.copyOf(dimensions);
			return this;
		}

		public Builder retry(RetrySettings retry) {
			this.retry = Objects.requireNonNull(retry);
			return this;
		}

		public Builder throttle(ThrottleSettings throttle) {
			this.throttle = Objects.requireNonNull(throttle);
			return this;
		}

		public Builder accounts(AccountSettings accounts) {
			this.accounts = Objects.requireNonNull(accounts);
			return this;
		}

		public Builder timeouts(TimeoutSettings timeouts) {
			this.timeouts = Objects.requireNonNull(timeouts);
			return this;
		}

		/** The classifiers; by default the built-in ones with this builder's clock. */
		public Builder classifiers(ProviderClassifiers classifiers) {
			this.classifiers = classifiers;
			return this;
		}

		public Builder extractors(ErrorExtractors extractors) {
			this.extractors = Objects.requireNonNull(extractors);
			return this;
		}

		public Builder observer(CallObserver observer) {
			this.observer = Objects.requireNonNull(observer);
			return this;
		}

		/** Told about exceptions no extractor knows (classifiers get their own listener). */
		public Builder unclassifiedListener(UnclassifiedListener unclassified) {
			this.unclassified = Objects.requireNonNull(unclassified);
			return this;
		}

		/**
		 * Whose fault an exception is that no extractor recognises: the caller's by
		 * default (surfaces unchanged, never recorded), or the provider's.
		 */
		public Builder unknownExceptions(UnknownExceptions unknownExceptions) {
			this.unknownExceptions = Objects.requireNonNull(unknownExceptions);
			return this;
		}

		public Builder listener(StateChangeListener listener) {
			this.listeners.add(Objects.requireNonNull(listener));
			return this;
		}

		/** Where state changes go; by default a new {@link StateChanges} on this builder's clock. */
		public Builder events(StateChanges events) {
			this.events = events;
			return this;
		}

		/** The source of backoff jitter, uniform in [0, 1). */
		public Builder random(DoubleSupplier random) {
			this.random = Objects.requireNonNull(random);
			return this;
		}

		/**
		 * @throws IllegalArgumentException when a chain or target is invalid; the message
		 * names it
		 */
		public LlmResilience build() {
			StateChanges events = (this.events != null) ? this.events : new StateChanges(this.clock);
			this.listeners.forEach(events::addListener);
			TargetRegistry registry = new TargetRegistry(this.targets, this.chains, events);
			return new LlmResilience(this, registry, events);
		}

		/** Build on a registry made elsewhere (the auto-configuration's). */
		public LlmResilience build(TargetRegistry registry, StateChanges events) {
			this.listeners.forEach(events::addListener);
			return new LlmResilience(this, registry, events);
		}

	}

}
