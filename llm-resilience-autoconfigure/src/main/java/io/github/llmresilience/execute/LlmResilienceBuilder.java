package io.github.llmresilience.execute;

import java.io.IOException;
import java.net.InetAddress;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.canary.CanaryJudge;
import io.github.llmresilience.canary.CanaryProbe;
import io.github.llmresilience.canary.CanarySettings;
import io.github.llmresilience.change.StateChangeListener;
import io.github.llmresilience.change.StateChanges;
import io.github.llmresilience.classify.ClassificationRules;
import io.github.llmresilience.classify.ProviderClassifiers;
import io.github.llmresilience.classify.UnclassifiedListener;
import io.github.llmresilience.extract.ErrorExtractors;
import io.github.llmresilience.fleet.FleetSettings;
import io.github.llmresilience.fleet.FleetStore;
import io.github.llmresilience.hedge.HedgingSettings;
import io.github.llmresilience.overload.ClientThrottlingSettings;
import io.github.llmresilience.overload.ConcurrencySettings;
import io.github.llmresilience.overload.OverloadSettings;
import io.github.llmresilience.pool.BucketSource;
import io.github.llmresilience.pool.LeaseSettings;
import io.github.llmresilience.pool.LeaseStore;
import io.github.llmresilience.pool.LeasedSupplies;
import io.github.llmresilience.pool.SupplySource;
import io.github.llmresilience.pool.PartitionSettings;
import io.github.llmresilience.retry.RetrySettings;
import io.github.llmresilience.spend.Price;
import io.github.llmresilience.spend.SpendSettings;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.target.TargetRegistry;
import io.github.llmresilience.throttle.AccountSettings;
import io.github.llmresilience.throttle.ThrottleSettings;
import io.github.llmresilience.timeout.CoalescingTimer;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import org.jspecify.annotations.Nullable;
import reactor.core.scheduler.Scheduler;

/**
 * Builds an {@link LlmResilience} without Spring, as the auto-configuration does from
 * {@code llm.resilience.*}: every setting starts at its default, and each settings record
 * checks its own ranges when it is made.
 *
 * <pre class="code">
 * LlmResilience resilience = LlmResilience.builder()
 *     .target(Target.of("primary", "openai"))
 *     .target(Target.of("secondary", "anthropic"))
 *     .chain("chat", "primary", "secondary")
 *     .build();
 * </pre>
 */
public final class LlmResilienceBuilder {

	Clock clock = Clock.systemUTC();

	Scheduler scheduler = CoalescingTimer.shared();

	final List<Target> targets = new ArrayList<>();

	final Map<String, TargetOptions> targetOptions = new LinkedHashMap<>();

	final Map<String, List<String>> chains = new LinkedHashMap<>();

	BreakerSettings breaker = BreakerSettings.defaults();

	List<String> failureDomain = List.of("provider", "model", "region");

	RetrySettings retry = RetrySettings.defaults();

	ThrottleSettings throttle = ThrottleSettings.defaults();

	AccountSettings accounts = AccountSettings.defaults();

	TimeoutSettings timeouts = TimeoutSettings.defaults();

	@Nullable ProviderClassifiers classifiers;

	ErrorExtractors extractors = ErrorExtractors.standard();

	CallObserver observer = CallObserver.NONE;

	CallTracing tracing = CallTracing.NONE;

	UnclassifiedListener unclassified = UnclassifiedListener.NONE;

	UnknownExceptions unknownExceptions = UnknownExceptions.CALLER;

	final List<StateChangeListener> listeners = new ArrayList<>();

	DoubleSupplier random = () -> ThreadLocalRandom.current().nextDouble();

	CircuitBreakerRegistry circuitBreakers = CircuitBreakerRegistry.ofDefaults();

	@Nullable StateChanges events;

	@Nullable FleetStore fleetStore;

	@Nullable FleetSettings fleetSettings;

	String fleetPod = defaultPod();

	ClassificationRules rules = new ClassificationRules();

	OverloadSettings overload = OverloadSettings.defaults();

	ConcurrencySettings concurrency = ConcurrencySettings.defaults();

	ClientThrottlingSettings clientThrottling = ClientThrottlingSettings.defaults();

	HedgingSettings hedging = HedgingSettings.defaults();

	PartitionSettings pools = PartitionSettings.defaults();

	@Nullable BucketSource buckets;

	@Nullable LeaseStore leaseStore;

	LeaseSettings leases = LeaseSettings.defaults();

	@Nullable CanarySettings canary;

	/** Per target; a {@code null} value turns the canary off for that target. */
	final Map<String, @Nullable CanarySettings> targetCanaries = new HashMap<>();

	@Nullable CanaryProbe canaryProbe;

	@Nullable CanaryJudge canaryJudge;

	SpendSettings spend = SpendSettings.defaults();

	final Map<String, Price> prices = new LinkedHashMap<>();

	LlmResilienceBuilder() {
	}

	/** The clock for every expiry and measurement. */
	public LlmResilienceBuilder clock(Clock clock) {
		this.clock = Objects.requireNonNull(clock);
		return this;
	}

	/**
	 * The scheduler for attempt timeouts and backoff delays; by default the shared
	 * {@link CoalescingTimer}, which arms and disarms a timeout without a lock.
	 */
	public LlmResilienceBuilder scheduler(Scheduler scheduler) {
		this.scheduler = Objects.requireNonNull(scheduler);
		return this;
	}

	public LlmResilienceBuilder target(Target target) {
		return target(target, TargetOptions.DEFAULTS);
	}

	public LlmResilienceBuilder target(Target target, TargetOptions options) {
		this.targets.add(Objects.requireNonNull(target));
		this.targetOptions.put(target.name(), Objects.requireNonNull(options));
		return this;
	}

	public LlmResilienceBuilder chain(String name, String... targets) {
		return chain(name, List.of(targets));
	}

	public LlmResilienceBuilder chain(String name, List<String> targets) {
		this.chains.put(name, List.copyOf(targets));
		return this;
	}

	public LlmResilienceBuilder breaker(BreakerSettings breaker) {
		this.breaker = Objects.requireNonNull(breaker);
		return this;
	}

	/**
	 * Which target attributes name a failure domain: provider, model, region, account,
	 * target.
	 */
	public LlmResilienceBuilder failureDomain(List<String> dimensions) {
		this.failureDomain = List.copyOf(dimensions);
		return this;
	}

	public LlmResilienceBuilder retry(RetrySettings retry) {
		this.retry = Objects.requireNonNull(retry);
		return this;
	}

	public LlmResilienceBuilder throttle(ThrottleSettings throttle) {
		this.throttle = Objects.requireNonNull(throttle);
		return this;
	}

	public LlmResilienceBuilder accounts(AccountSettings accounts) {
		this.accounts = Objects.requireNonNull(accounts);
		return this;
	}

	public LlmResilienceBuilder timeouts(TimeoutSettings timeouts) {
		this.timeouts = Objects.requireNonNull(timeouts);
		return this;
	}

	/** The classifiers; by default the built-in ones with this builder's clock. */
	public LlmResilienceBuilder classifiers(@Nullable ProviderClassifiers classifiers) {
		this.classifiers = classifiers;
		return this;
	}

	/**
	 * The user's classification rules, tried before each provider's table; edit them at
	 * runtime through {@link LlmResilience#classificationRules()}. By default none.
	 */
	public LlmResilienceBuilder classificationRules(ClassificationRules rules) {
		this.rules = Objects.requireNonNull(rules);
		return this;
	}

	/** How long a provider whose whole fleet is overloaded is tried last. */
	public LlmResilienceBuilder overload(OverloadSettings overload) {
		this.overload = Objects.requireNonNull(overload);
		return this;
	}

	/**
	 * The adaptive limit on calls in flight to each failure domain; off by default: a
	 * call over its target's limit tries the next target.
	 */
	public LlmResilienceBuilder concurrency(ConcurrencySettings concurrency) {
		this.concurrency = Objects.requireNonNull(concurrency);
		return this;
	}

	/**
	 * Client-side throttling: a provider account that refuses more than it accepts gets
	 * fewer requests from this pod, background first. On by default.
	 */
	public LlmResilienceBuilder clientThrottling(ClientThrottlingSettings clientThrottling) {
		this.clientThrottling = Objects.requireNonNull(clientThrottling);
		return this;
	}

	/**
	 * First-token hedging of streams: when an attempt's first element is late, the same
	 * request to a target of another failure domain, the first element to come wins. By
	 * default off.
	 */
	public LlmResilienceBuilder hedging(HedgingSettings hedging) {
		this.hedging = Objects.requireNonNull(hedging);
		return this;
	}

	/**
	 * The traffic classes ({@code CallOptions.pool(...)}): how long each may wait for a
	 * rate limit to clear and, when enabled, each quota scope's capacity partitioned by
	 * their shares. By default off, with the interactive (2 s), background (120 s) and
	 * evaluation (600 s) pools.
	 */
	public LlmResilienceBuilder pools(PartitionSettings pools) {
		this.pools = Objects.requireNonNull(pools);
		return this;
	}

	/**
	 * Give every target's failure domain a canary: when its breaker's open time ends, the
	 * engine sends this request off the call path and its judged answer is the half-open
	 * trial; calls are refused until it passes. By default none: a call is the trial.
	 */
	public LlmResilienceBuilder canary(CanarySettings canary) {
		this.canary = Objects.requireNonNull(canary);
		return this;
	}

	/**
	 * How each failure domain's spend per call is judged against its trailing median; by
	 * default off.
	 */
	public LlmResilienceBuilder spend(SpendSettings spend) {
		this.spend = Objects.requireNonNull(spend);
		return this;
	}

	/**
	 * Where the pools' buckets live: by default in this process (in fleet mode each pod
	 * partitions its equal part of a scope's capacity); a Bucket4j proxy manager's
	 * buckets for one shared bucket per pool, at the cost of a store round trip per call.
	 */
	public LlmResilienceBuilder poolBuckets(@Nullable BucketSource buckets) {
		this.buckets = buckets;
		return this;
	}

	/**
	 * In fleet mode with pools partitioned: lease each quota scope's capacity from one
	 * shared bucket in the store, in slices sized to this pod's demand, rather than
	 * partition an equal part of it (when {@code settings} are enabled).
	 * @param store the fleet's lease buckets, such as a {@code RedisLeaseStore}
	 * @param settings the period and the exchange's timeout
	 */
	public LlmResilienceBuilder poolLeases(LeaseStore store, LeaseSettings settings) {
		this.leaseStore = Objects.requireNonNull(store);
		this.leases = Objects.requireNonNull(settings);
		return this;
	}

	/**
	 * Where each scope's supply comes from: leases when {@link #poolLeases} set a store
	 * and enabled them in fleet mode, each pod's equal part of the local buckets
	 * otherwise ({@code parts}, also what a pod that cannot reach the store falls back
	 * to). The leases' background runs on this builder's scheduler from now; the engine
	 * releases them when it closes ({@link LeasedSupplies#release()}).
	 */
	SupplySource poolSupplies(LongSupplier nanoTime, SupplySource parts) {
		if (this.leaseStore == null || !this.leases.enabled() || this.fleetStore == null) {
			return parts;
		}
		LeasedSupplies leases = new LeasedSupplies(this.leaseStore, this.leases, this.fleetPod, nanoTime, parts);
		leases.start(this.scheduler);
		return leases;
	}

	/**
	 * A target's own canary, over the default; {@code null} gives the target none. The
	 * first target of a failure domain with a canary sends the domain's.
	 */
	public LlmResilienceBuilder canary(String target, @Nullable CanarySettings canary) {
		this.targetCanaries.put(Objects.requireNonNull(target), canary);
		return this;
	}

	/**
	 * Send every canary with this probe instead of the built-in prompt sender; with no
	 * {@link #canary(CanarySettings) canary settings}, every target gets a canary with
	 * the default timeout and judgement.
	 */
	public LlmResilienceBuilder canaryProbe(CanaryProbe probe) {
		this.canaryProbe = Objects.requireNonNull(probe);
		return this;
	}

	/** The judge of canaries judged by {@link CanarySettings.Judge#PREDICATE}. */
	public LlmResilienceBuilder canaryJudge(CanaryJudge judge) {
		this.canaryJudge = Objects.requireNonNull(judge);
		return this;
	}

	/**
	 * What a target's tokens cost; without a price its spend is counted in tokens.
	 * Targets sharing a failure domain must share a price.
	 */
	public LlmResilienceBuilder price(String target, Price price) {
		this.prices.put(Objects.requireNonNull(target), Objects.requireNonNull(price));
		return this;
	}

	public LlmResilienceBuilder extractors(ErrorExtractors extractors) {
		this.extractors = Objects.requireNonNull(extractors);
		return this;
	}

	public LlmResilienceBuilder observer(CallObserver observer) {
		this.observer = Objects.requireNonNull(observer);
		return this;
	}

	/**
	 * Where each call's trace comes from (the auto-configuration passes Micrometer
	 * Observations when there is an {@code ObservationRegistry}); none by default.
	 */
	public LlmResilienceBuilder tracing(CallTracing tracing) {
		this.tracing = Objects.requireNonNull(tracing);
		return this;
	}

	/** Told about exceptions no extractor knows (classifiers get their own listener). */
	public LlmResilienceBuilder unclassifiedListener(UnclassifiedListener unclassified) {
		this.unclassified = Objects.requireNonNull(unclassified);
		return this;
	}

	/**
	 * Whose fault an exception is that no extractor recognises: the caller's by default
	 * (surfaces unchanged, never recorded), or the provider's.
	 */
	public LlmResilienceBuilder unknownExceptions(UnknownExceptions unknownExceptions) {
		this.unknownExceptions = Objects.requireNonNull(unknownExceptions);
		return this;
	}

	public LlmResilienceBuilder listener(StateChangeListener listener) {
		this.listeners.add(Objects.requireNonNull(listener));
		return this;
	}

	/**
	 * Where state changes go; by default a new {@link StateChanges} on this builder's
	 * clock.
	 */
	public LlmResilienceBuilder events(@Nullable StateChanges events) {
		this.events = events;
		return this;
	}

	/**
	 * Where the failure domains' Resilience4j breakers are kept, so that Resilience4j's
	 * own meter binders can find them; by default a registry of their own. Change their
	 * state through {@link LlmResilience#operator()}.
	 */
	public LlmResilienceBuilder circuitBreakers(CircuitBreakerRegistry circuitBreakers) {
		this.circuitBreakers = Objects.requireNonNull(circuitBreakers);
		return this;
	}

	/**
	 * Share breakers, gates, parks, locks and operator commands with every pod of the
	 * same namespace through a store (fleet mode). Nothing on a call's path waits on the
	 * store.
	 * @param store the fleet's store, such as a {@code RedisFleetStore}
	 * @param settings the namespace, sync interval, window and probe settings
	 */
	public LlmResilienceBuilder fleet(FleetStore store, FleetSettings settings) {
		this.fleetStore = Objects.requireNonNull(store);
		this.fleetSettings = Objects.requireNonNull(settings);
		return this;
	}

	/**
	 * This pod's id in the fleet, which names the prober in state and events; by default
	 * the host name (a Kubernetes pod's name) and a random suffix.
	 */
	public LlmResilienceBuilder fleetPod(String pod) {
		// The store answers in tab- and line-separated fields, the pod's id among them.
		Target.requireName("fleet pod", Objects.requireNonNull(pod));
		this.fleetPod = pod;
		return this;
	}

	static String defaultPod() {
		String host;
		try {
			host = InetAddress.getLocalHost().getHostName();
		}
		catch (IOException | RuntimeException ex) {
			host = "pod";
		}
		return host + "-" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x10000));
	}

	/** The source of backoff jitter, uniform in [0, 1). */
	public LlmResilienceBuilder random(DoubleSupplier random) {
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
