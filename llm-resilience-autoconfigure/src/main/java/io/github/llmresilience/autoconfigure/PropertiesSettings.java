package io.github.llmresilience.autoconfigure;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.llmresilience.autoconfigure.InvalidLlmResiliencePropertiesException.Problem;
import io.github.llmresilience.autoconfigure.LlmResilienceProperties.BreakerOverrides;
import io.github.llmresilience.autoconfigure.LlmResilienceProperties.Canary;
import io.github.llmresilience.autoconfigure.LlmResilienceProperties.PoolProperties;
import io.github.llmresilience.autoconfigure.LlmResilienceProperties.TargetProperties;
import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.canary.CanaryJudge;
import io.github.llmresilience.canary.CanaryProbe;
import io.github.llmresilience.canary.CanarySettings;
import io.github.llmresilience.classify.ClassificationRule;
import io.github.llmresilience.classify.ClassifierSettings;
import io.github.llmresilience.classify.UnclassifiedListener;
import io.github.llmresilience.execute.LlmResilienceBuilder;
import io.github.llmresilience.execute.TargetOptions;
import io.github.llmresilience.execute.TimeoutSettings;
import io.github.llmresilience.execute.UnknownExceptions;
import io.github.llmresilience.fleet.FleetSettings;
import io.github.llmresilience.hedge.HedgingSettings;
import io.github.llmresilience.overload.ClientThrottlingSettings;
import io.github.llmresilience.overload.ConcurrencySettings;
import io.github.llmresilience.overload.OverloadSettings;
import io.github.llmresilience.pool.Capacity;
import io.github.llmresilience.pool.LeaseSettings;
import io.github.llmresilience.pool.PartitionSettings;
import io.github.llmresilience.pool.PoolSettings;
import io.github.llmresilience.retry.RetrySettings;
import io.github.llmresilience.settings.InvalidSettingException;
import io.github.llmresilience.spend.Price;
import io.github.llmresilience.spend.SpendSettings;
import io.github.llmresilience.target.Secret;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.throttle.AccountSettings;
import io.github.llmresilience.throttle.ThrottleSettings;
import io.github.llmresilience.timeout.AdaptiveSettings;
import org.jspecify.annotations.Nullable;

/**
 * The settings {@link LlmResilienceProperties} make: the one place properties become the
 * records the engine runs with, so that what startup checks is what runs. Each record
 * checks its own ranges; this class knows which property each component came from, and
 * turns a record's {@link InvalidSettingException} into a problem naming that property
 * and the allowed range. Only rules between properties that no one record holds (a
 * chain's members, a slow-call duration below its timeout) are checked here. Every
 * problem is collected, so that one start names them all.
 */
final class PropertiesSettings {

	static final String PREFIX = LlmResilienceProperties.PREFIX;

	/** The fleet's namespace when neither it nor the application's name is set. */
	static final String DEFAULT_NAMESPACE = "llm-resilience";

	/**
	 * How far into the first-token timeout a stream starts to count as slow, unless
	 * configured.
	 */
	private static final double SLOW_FIRST_TOKEN_SHARE = 0.6;

	private static final Set<String> FAILURE_DOMAIN = Set.of("provider", "model", "region", "account", "target");

	private final LlmResilienceProperties properties;

	private final List<Problem> problems = new ArrayList<>();

	private final Map<String, TargetOptions> targetOptions = new LinkedHashMap<>();

	private final Map<String, Price> prices = new LinkedHashMap<>();

	private final Map<String, CanarySettings> targetCanaries = new LinkedHashMap<>();

	private final List<Target> targets = new ArrayList<>();

	private final List<ClassificationRule> rules = new ArrayList<>();

	private @Nullable CanarySettings canary;

	private @Nullable BreakerSettings breaker;

	private @Nullable RetrySettings retry;

	private @Nullable ThrottleSettings throttle;

	private @Nullable AccountSettings accounts;

	private @Nullable TimeoutSettings timeouts;

	private @Nullable FleetSettings fleet;

	private @Nullable OverloadSettings overload;

	private @Nullable ConcurrencySettings concurrency;

	private @Nullable ClientThrottlingSettings clientThrottling;

	private @Nullable PartitionSettings pools;

	private @Nullable LeaseSettings leases;

	private @Nullable SpendSettings spend;

	private @Nullable HedgingSettings hedging;

	private PropertiesSettings(LlmResilienceProperties properties, @Nullable String applicationName) {
		this.properties = properties;
		properties.getTargets().forEach(this::readTarget);
		checkChains();
		checkFallbacks();
		readBreaker();
		this.retry = readRetry();
		readThrottle();
		readAccounts();
		readTimeouts();
		readFleet(applicationName);
		readRules();
		this.overload = readOverload();
		this.concurrency = readConcurrency();
		this.clientThrottling = readClientThrottling();
		readPools();
		this.leases = readLeases();
		this.spend = readSpend();
		this.hedging = readHedging();
		checkSlowCallsBelowTimeouts();
		if (this.problems.isEmpty()) {
			properties.getTargets()
				.forEach((name, target) -> this.targets.add(new Target(name, target.getProvider(), target.getAccount(),
						target.getModel(), target.getRegion(), target.getBaseUrl(), Secret.of(target.getApiKey()))));
		}
	}

	/**
	 * The settings of these properties.
	 * @param properties the bound properties
	 * @param applicationName {@code spring.application.name}, the fleet's default
	 * namespace
	 * @return the settings
	 * @throws InvalidLlmResiliencePropertiesException naming every property out of its
	 * range
	 */
	static PropertiesSettings of(LlmResilienceProperties properties, @Nullable String applicationName) {
		PropertiesSettings settings = new PropertiesSettings(properties, applicationName);
		if (!settings.problems.isEmpty()) {
			throw new InvalidLlmResiliencePropertiesException(settings.problems);
		}
		return settings;
	}

	/**
	 * Every problem of these properties that needs no bean to find.
	 * @param properties the bound properties
	 * @return the problems, none when the properties make settings
	 */
	static List<Problem> problems(LlmResilienceProperties properties) {
		return Collections.unmodifiableList(new PropertiesSettings(properties, null).problems);
	}

	List<Target> targets() {
		return this.targets;
	}

	Map<String, List<String>> chains() {
		return this.properties.getChains();
	}

	/**
	 * A target's own options: its timeouts, and its breaker when it overrides one (or
	 * moves the slow-first-token default with its own first-token timeout).
	 */
	TargetOptions targetOptions(String target) {
		return this.targetOptions.getOrDefault(target, TargetOptions.DEFAULTS);
	}

	Map<String, Price> prices() {
		return this.prices;
	}

	List<ClassificationRule> rules() {
		return this.rules;
	}

	BreakerSettings breaker() {
		return present(this.breaker);
	}

	List<String> failureDomain() {
		return this.properties.getBreaker().getFailureDomain();
	}

	RetrySettings retry() {
		return present(this.retry);
	}

	ThrottleSettings throttle() {
		return present(this.throttle);
	}

	Duration quotaThreshold() {
		return this.properties.getThrottle().getQuotaThreshold();
	}

	AccountSettings accounts() {
		return present(this.accounts);
	}

	TimeoutSettings timeouts() {
		return present(this.timeouts);
	}

	boolean fleetEnabled() {
		return this.properties.getFleet().isEnabled();
	}

	FleetSettings fleet() {
		return present(this.fleet);
	}

	/** This pod's id in the fleet, when configured. */
	@Nullable String fleetPod() {
		return this.properties.getFleet().getPod();
	}

	UnknownExceptions unknownExceptions() {
		return this.properties.getClassification().getUnknownExceptions();
	}

	OverloadSettings overload() {
		return present(this.overload);
	}

	ConcurrencySettings concurrency() {
		return present(this.concurrency);
	}

	ClientThrottlingSettings clientThrottling() {
		return present(this.clientThrottling);
	}

	HedgingSettings hedging() {
		return present(this.hedging);
	}

	PartitionSettings pools() {
		return present(this.pools);
	}

	LeaseSettings leases() {
		return present(this.leases);
	}

	SpendSettings spend() {
		return present(this.spend);
	}

	/**
	 * Give the builder the canaries of {@code llm.resilience.breaker.canary} and each
	 * target's {@code breaker.canary}, sent by the application's {@link CanaryProbe} when
	 * there is one, else by the built-in prompt sender. Whether a canary is on depends on
	 * the probe, so this is decided with the beans.
	 * @throws InvalidLlmResiliencePropertiesException when a canary judged by predicate
	 * has no {@link CanaryJudge} bean
	 */
	void canaries(LlmResilienceBuilder builder, @Nullable CanaryProbe probe, @Nullable CanaryJudge judge) {
		Canary defaults = this.properties.getBreaker().getCanary();
		String defaultProperty = PREFIX + ".breaker.canary";
		List<Problem> missingJudge = new ArrayList<>();
		if (probe != null) {
			builder.canaryProbe(probe);
		}
		if (judge != null) {
			builder.canaryJudge(judge);
		}
		if (isOn(defaults, null, probe != null)) {
			CanarySettings settings = present(this.canary);
			requireJudge(settings, judge, defaultProperty, missingJudge);
			builder.canary(settings);
		}
		this.targetCanaries.forEach((name, settings) -> {
			Canary canary = this.properties.getTargets().get(name).getBreaker().getCanary();
			boolean on = isOn(canary, defaults, probe != null);
			if (on) {
				requireJudge(settings, judge,
						(canary.getJudge() != null) ? PREFIX + ".targets." + name + ".breaker.canary" : defaultProperty,
						missingJudge);
			}
			builder.canary(name, on ? settings : null);
		});
		if (!missingJudge.isEmpty()) {
			throw new InvalidLlmResiliencePropertiesException(missingJudge);
		}
	}

	private void readTarget(String name, TargetProperties target) {
		String property = PREFIX + ".targets." + name;
		String nameProblem = Target.nameProblem(name);
		if (nameProblem != null) {
			add(new Problem(property, quote(name), "the target's name " + nameProblem));
		}
		checkName(property + ".provider", target.getProvider());
		checkName(property + ".account", target.getAccount());
		checkName(property + ".model", target.getModel());
		checkName(property + ".region", target.getRegion());
		if (target.getProvider() == null || target.getProvider().isBlank()) {
			add(new Problem(property + ".provider", "null",
					"every target needs a provider (provider id such as openai or anthropic)"));
		}
		if (target.getModel() == null || target.getModel().isBlank()) {
			add(new Problem(property + ".model", quote(target.getModel()), "must not be blank"));
		}
		if (target.getRegion() == null || target.getRegion().isBlank()) {
			add(new Problem(property + ".region", quote(target.getRegion()), "must not be blank"));
		}
		Canary canary = target.getBreaker().getCanary();
		if (!isEmpty(canary)) {
			CanarySettings settings = build(
					overriding(property + ".breaker.canary", overridden(canary), PREFIX + ".breaker.canary"),
					() -> canarySettings(canary, this.properties.getBreaker().getCanary()));
			if (settings != null) {
				this.targetCanaries.put(name, settings);
			}
		}
		BreakerSettings breaker = targetBreaker(property, target);
		TargetOptions options = build(
				(component) -> property + ".timeouts." + kebabCase(component.replace("Timeout", "")),
				() -> new TargetOptions(breaker, target.getTimeouts().getAttempt(),
						target.getTimeouts().getFirstToken(), target.getTimeouts().getStall()));
		if (options != null) {
			this.targetOptions.put(name, options);
		}
		Double input = target.getPrice().getInput();
		Double output = target.getPrice().getOutput();
		if (input != null || output != null) {
			Price price = build(under(property + ".price"),
					() -> new Price((input != null) ? input : 0d, (output != null) ? output : 0d));
			if (price != null) {
				this.prices.put(name, price);
			}
		}
	}

	/**
	 * The breaker a target gets when it overrides the defaults or has a first-token
	 * timeout of its own (which moves the default slow-first-token threshold);
	 * {@code null} when it runs with the default breaker.
	 */
	private @Nullable BreakerSettings targetBreaker(String property, TargetProperties target) {
		BreakerOverrides overrides = target.getBreaker();
		Duration firstToken = target.getTimeouts().getFirstToken();
		if (isEmpty(overrides) && firstToken == null) {
			return null;
		}
		LlmResilienceProperties.Breaker defaults = this.properties.getBreaker();
		Set<String> overridden = new HashSet<>();
		addIfSet(overridden, "slidingWindowSize", overrides.getSlidingWindowSize());
		addIfSet(overridden, "minimumCalls", overrides.getMinimumCalls());
		addIfSet(overridden, "failureRateThreshold", overrides.getFailureRateThreshold());
		addIfSet(overridden, "slowCallDuration", overrides.getSlowCallDuration());
		addIfSet(overridden, "slowCallRateThreshold", overrides.getSlowCallRateThreshold());
		addIfSet(overridden, "openDuration", overrides.getOpenDuration());
		addIfSet(overridden, "openDurationMax", overrides.getOpenDurationMax());
		addIfSet(overridden, "slowFirstTokenDuration", overrides.getSlowFirstTokenDuration());
		Duration slowFirstToken = (overrides.getSlowFirstTokenDuration() != null)
				? overrides.getSlowFirstTokenDuration()
				: slowFirstToken((firstToken != null) ? firstToken : this.properties.getTimeouts().getFirstToken());
		return build(overriding(property + ".breaker", overridden, PREFIX + ".breaker"),
				() -> new BreakerSettings(orDefault(overrides.getSlidingWindowSize(), defaults.getSlidingWindowSize()),
						orDefault(overrides.getMinimumCalls(), defaults.getMinimumCalls()),
						orDefault(overrides.getFailureRateThreshold(), defaults.getFailureRateThreshold()),
						orDefault(overrides.getSlowCallDuration(), defaults.getSlowCallDuration()),
						orDefault(overrides.getSlowCallRateThreshold(), defaults.getSlowCallRateThreshold()),
						orDefault(overrides.getOpenDuration(), defaults.getOpenDuration()),
						orDefault(overrides.getOpenDurationMax(), defaults.getOpenDurationMax()),
						defaults.getHalfOpenCalls(), slowFirstToken, defaults.getHalfOpenTimeout()));
	}

	/**
	 * The slow-first-token threshold: the configured one, else 60% of the first-token
	 * timeout (the default's, when that timeout is itself out of range, so that only the
	 * timeout is named).
	 */
	private Duration slowFirstToken(@Nullable Duration firstTokenTimeout) {
		Duration configured = this.properties.getBreaker().getSlowFirstTokenDuration();
		if (configured != null) {
			return configured;
		}
		if (firstTokenTimeout == null || firstTokenTimeout.isNegative() || firstTokenTimeout.isZero()) {
			return BreakerSettings.DEFAULT_SLOW_FIRST_TOKEN;
		}
		return Duration.ofNanos((long) (firstTokenTimeout.toNanos() * SLOW_FIRST_TOKEN_SHARE));
	}

	private void checkChains() {
		Map<String, TargetProperties> targets = this.properties.getTargets();
		this.properties.getChains().forEach((name, members) -> {
			String property = PREFIX + ".chains." + name;
			String nameProblem = Target.nameProblem(name);
			if (nameProblem != null) {
				add(new Problem(property, quote(name), "the chain's name " + nameProblem));
			}
			if (members == null || members.isEmpty()) {
				add(new Problem(property, "[]", "a chain needs at least one target"));
				return;
			}
			Set<String> seen = new HashSet<>();
			for (int i = 0; i < members.size(); i++) {
				String member = members.get(i);
				if (!targets.containsKey(member)) {
					add(new Problem(property + "[" + i + "]", quote(member), "must name a target configured under "
							+ PREFIX + ".targets; known targets: " + targets.keySet()));
				}
				else if (!seen.add(member)) {
					add(new Problem(property + "[" + i + "]", quote(member),
							"names the same target twice; retries of one target are set by " + PREFIX
									+ ".retry.max-attempts"));
				}
			}
		});
	}

	private void checkFallbacks() {
		Map<String, List<String>> chains = this.properties.getChains();
		this.properties.getFallbacks().forEach((chain, bean) -> {
			String property = PREFIX + ".fallbacks." + chain;
			if (!chains.containsKey(chain)) {
				add(new Problem(property, quote(bean), "must be keyed by a chain configured under " + PREFIX
						+ ".chains; known chains: " + chains.keySet()));
			}
			else if (bean == null || bean.isBlank()) {
				add(new Problem(property, quote(bean), "must name an LlmFallback bean"));
			}
		});
	}

	private void readBreaker() {
		LlmResilienceProperties.Breaker breaker = this.properties.getBreaker();
		String property = PREFIX + ".breaker";
		this.canary = build(under(property + ".canary"), () -> canarySettings(breaker.getCanary(), null));
		List<String> failureDomain = breaker.getFailureDomain();
		if (failureDomain == null || failureDomain.isEmpty() || !FAILURE_DOMAIN.containsAll(failureDomain)) {
			add(new Problem(property + ".failure-domain", String.valueOf(failureDomain),
					"must list one or more of " + FAILURE_DOMAIN));
		}
		Duration slowFirstToken = slowFirstToken(this.properties.getTimeouts().getFirstToken());
		this.breaker = build(under(property),
				() -> new BreakerSettings(breaker.getSlidingWindowSize(), breaker.getMinimumCalls(),
						breaker.getFailureRateThreshold(), breaker.getSlowCallDuration(),
						breaker.getSlowCallRateThreshold(), breaker.getOpenDuration(), breaker.getOpenDurationMax(),
						breaker.getHalfOpenCalls(), slowFirstToken, breaker.getHalfOpenTimeout()));
	}

	private @Nullable RetrySettings readRetry() {
		LlmResilienceProperties.Retry retry = this.properties.getRetry();
		return build(under(PREFIX + ".retry"), () -> new RetrySettings(retry.getMaxAttempts(), retry.getBackoffBase(),
				retry.getBackoffMax(), retry.getBudgetRatio(), retry.getBudgetWindow(), retry.getBudgetMinimum()));
	}

	private void readThrottle() {
		LlmResilienceProperties.Throttle throttle = this.properties.getThrottle();
		String property = PREFIX + ".throttle";
		this.throttle = build(under(property),
				() -> (throttle.getMinWait() != null)
						? new ThrottleSettings(throttle.getDefaultWait(), throttle.getMaxWait(), throttle.getMinWait())
						: new ThrottleSettings(throttle.getDefaultWait(), throttle.getMaxWait()));
		// The classifiers' record holds the quota threshold; its clock and listener are
		// beans, given when the classifiers are made.
		build(under(property), () -> new ClassifierSettings(Clock.systemUTC(), throttle.getQuotaThreshold(),
				UnclassifiedListener.NONE));
		// A rule between two records: a hint the gate would cut must not be a quota.
		if (throttle.getMaxWait() != null && throttle.getQuotaThreshold() != null
				&& throttle.getQuotaThreshold().compareTo(throttle.getMaxWait()) < 0) {
			add(new Problem(property + ".quota-threshold", throttle.getQuotaThreshold().toString(),
					"must be at least " + property + ".max-wait (" + throttle.getMaxWait() + ")"));
		}
	}

	/**
	 * One record from two groups of properties: each group is checked over the other's
	 * defaults first, so that a mistake in each is named, then the record is made.
	 */
	private void readAccounts() {
		LlmResilienceProperties.Quota quota = this.properties.getQuota();
		LlmResilienceProperties.Credential credential = this.properties.getCredential();
		Function<String, String> propertyOf = (component) -> PREFIX
				+ (component.startsWith("lock") ? ".credential." : ".quota.") + kebabCase(component);
		AccountSettings defaults = AccountSettings.defaults();
		AccountSettings parks = build(propertyOf, () -> new AccountSettings(quota.getDefaultPark(), quota.getMaxPark(),
				defaults.lockAfter(), defaults.lockDuration(), defaults.lockDurationMax()));
		AccountSettings locks = build(propertyOf, () -> new AccountSettings(defaults.defaultPark(), defaults.maxPark(),
				credential.getLockAfter(), credential.getLockDuration(), credential.getLockDurationMax()));
		if (parks != null && locks != null) {
			this.accounts = new AccountSettings(parks.defaultPark(), parks.maxPark(), locks.lockAfter(),
					locks.lockDuration(), locks.lockDurationMax());
		}
	}

	private void readTimeouts() {
		LlmResilienceProperties.Timeouts timeouts = this.properties.getTimeouts();
		LlmResilienceProperties.Adaptive adaptive = timeouts.getAdaptive();
		String property = PREFIX + ".timeouts";
		AdaptiveSettings adaptiveSettings = build(under(property + ".adaptive"),
				() -> new AdaptiveSettings(adaptive.isEnabled(), adaptive.getMinSamples(), adaptive.getMultiplier(),
						adaptive.getFloor(), adaptive.getFloorRatio()));
		TimeoutSettings settings = build(under(property),
				() -> new TimeoutSettings(timeouts.getAttempt(), timeouts.getFirstToken(), timeouts.getStall(),
						(adaptiveSettings != null) ? adaptiveSettings : AdaptiveSettings.defaults(),
						timeouts.getCall()));
		this.timeouts = (adaptiveSettings != null) ? settings : null;
	}

	/**
	 * The fleet's settings; its namespace defaults to the application's name only when
	 * the fleet is on, so that a name the fleet could not carry stops no application that
	 * does not use it.
	 */
	private void readFleet(@Nullable String applicationName) {
		LlmResilienceProperties.Fleet fleet = this.properties.getFleet();
		String property = PREFIX + ".fleet";
		boolean named = fleet.getNamespace() == null && fleet.isEnabled() && applicationName != null
				&& !applicationName.isBlank();
		String namespace = (fleet.getNamespace() != null) ? fleet.getNamespace()
				: named ? applicationName : DEFAULT_NAMESPACE;
		this.fleet = build(
				(component) -> (named && component.equals("namespace")) ? "spring.application.name"
						: property + "." + kebabCase(component),
				() -> new FleetSettings(namespace, fleet.getSyncInterval(), fleet.getWindow(), fleet.getProbeInterval(),
						fleet.getProbeLease(), fleet.getGateJitter(), fleet.getCommandTimeout()));
		String pod = fleet.getPod();
		if (pod != null && !pod.matches("[A-Za-z0-9._-]{1,100}")) {
			add(new Problem(property + ".pod", quote(pod), "must be 1 to 100 letters, digits, '.', '-' or '_'"));
		}
	}

	private void readRules() {
		List<LlmResilienceProperties.Rule> configured = this.properties.getClassification().getRules();
		for (int i = 0; i < configured.size(); i++) {
			LlmResilienceProperties.Rule rule = configured.get(i);
			String property = PREFIX + ".classification.rules[" + i + "]";
			if (rule == null) {
				add(new Problem(property, "null", "a rule needs an outcome and a condition"));
				continue;
			}
			ClassificationRule settings = build(
					(component) -> component.equals("rule") ? property : property + "." + kebabCase(component), () -> {
						ClassificationRule parsed = ClassificationRule.parse(rule.getProvider(), rule.getStatus(),
								rule.getType(), rule.getMessageContains(), rule.getOutcome(), null);
						return new ClassificationRule(parsed.provider(), parsed.status(), parsed.type(),
								parsed.messageContains(), parsed.outcome(), rule.getWait());
					});
			if (settings != null) {
				this.rules.add(settings);
			}
		}
	}

	private @Nullable OverloadSettings readOverload() {
		LlmResilienceProperties.ProviderOverload overload = this.properties.getProviderOverload();
		return build(under(PREFIX + ".provider-overload"), () -> new OverloadSettings(overload.isEnabled(),
				overload.getDefaultDuration(), overload.getMaxDuration()));
	}

	private @Nullable ConcurrencySettings readConcurrency() {
		LlmResilienceProperties.Concurrency concurrency = this.properties.getConcurrency();
		return build(under(PREFIX + ".concurrency"),
				() -> new ConcurrencySettings(concurrency.isEnabled(), concurrency.getAlgorithm(),
						(concurrency.getInitialLimit() != null) ? concurrency.getInitialLimit()
								: concurrency.getMaxLimit(),
						concurrency.getMinLimit(), concurrency.getMaxLimit(), concurrency.getBackoffRatio()));
	}

	private @Nullable ClientThrottlingSettings readClientThrottling() {
		LlmResilienceProperties.ClientThrottling throttling = this.properties.getClientThrottling();
		return build(under(PREFIX + ".client-throttling"),
				() -> new ClientThrottlingSettings(throttling.isEnabled(), throttling.getWindow(),
						throttling.getMinimumRequests(), throttling.getMultiplier(), throttling.getMultipliers()));
	}

	private @Nullable HedgingSettings readHedging() {
		LlmResilienceProperties.Hedging hedging = this.properties.getHedging();
		return build(under(PREFIX + ".hedging"), () -> new HedgingSettings(hedging.isEnabled(), hedging.isCalls(),
				hedging.getDelay(), hedging.getBudget(), hedging.getWindow(), hedging.getMinimum()));
	}

	private @Nullable LeaseSettings readLeases() {
		LlmResilienceProperties.FleetLeasesProperties leases = this.properties.getPools().getFleetLeases();
		return build(under(PREFIX + ".pools.fleet-leases"),
				() -> new LeaseSettings(leases.isEnabled(), leases.getPeriod(), leases.getExchangeTimeout()));
	}

	/**
	 * The pools: the built-in ones, each with what is configured over its defaults, then
	 * the added ones, which must set their share and wait as interactive does.
	 */
	private void readPools() {
		LlmResilienceProperties.Pools pools = this.properties.getPools();
		String property = PREFIX + ".pools";
		int before = this.problems.size();
		Map<String, PoolSettings> configured = new LinkedHashMap<>();
		pools.getClasses().forEach((name, pool) -> {
			PoolSettings settings = build(under(property + ".classes." + name), () -> pool(name, pool));
			if (settings != null) {
				configured.put(name, settings);
			}
		});
		Map<String, Capacity> capacities = new LinkedHashMap<>();
		pools.getCapacity().forEach((scope, capacity) -> {
			Capacity settings = build(under(property + ".capacity.[" + scope + "]"),
					() -> new Capacity(capacity.getRequestsPerMinute(), capacity.getTokensPerMinute()));
			if (settings != null) {
				capacities.put(scope, settings);
			}
		});
		LlmResilienceProperties.LearnedCapacityFloorProperties floor = pools.getLearnedCapacityFloor();
		Capacity learnedFloor = build(under(property + ".learned-capacity-floor"),
				() -> new Capacity(floor.getRequestsPerMinute(), floor.getTokensPerMinute()));
		if (this.problems.size() > before) {
			return;
		}
		List<PoolSettings> all = new ArrayList<>();
		for (PoolSettings defaults : PartitionSettings.defaultPools()) {
			all.add(configured.getOrDefault(defaults.name(), defaults));
		}
		configured.forEach((name, pool) -> {
			if (all.stream().noneMatch((known) -> known.name().equals(name))) {
				all.add(pool);
			}
		});
		this.pools = build((component) -> switch (component) {
			case "pools" -> property + ".classes";
			case "capacities" -> property + ".capacity";
			case "learn" -> property + ".learn-capacity";
			default -> property + "." + kebabCase(component);
		}, () -> new PartitionSettings(pools.isEnabled(), all, capacities, pools.isLearnCapacity(), learnedFloor));
		Set<String> scopes = new TreeSet<>();
		this.properties.getTargets()
			.forEach((name, target) -> scopes
				.add(((target.getAccount() != null && !target.getAccount().isBlank()) ? target.getAccount() : name)
						+ "/" + target.getModel()));
		pools.getCapacity()
			.keySet()
			.stream()
			.filter((scope) -> !scopes.contains(scope))
			.forEach((scope) -> add(new Problem(property + ".capacity.[" + scope + "]", quote(scope),
					"must name the quota scope (account/model) of a configured target; known scopes: " + scopes)));
	}

	/**
	 * A pool: what is set over the defaults of a built-in pool; an added pool must set
	 * its share, and waits like interactive.
	 */
	private static PoolSettings pool(String name, PoolProperties pool) {
		PoolSettings base = null;
		for (PoolSettings defaults : PartitionSettings.defaultPools()) {
			if (defaults.name().equals(name)) {
				base = defaults;
			}
		}
		if (base == null && pool.getShare() == null) {
			throw new InvalidSettingException("share", "must be set for a pool of your own (1 to 100 percent)",
					"unset");
		}
		PoolSettings interactive = PoolSettings.interactive();
		return new PoolSettings(name, orDefault(pool.getShare(), (base != null) ? base.share() : 0),
				orDefault(pool.getMaxWait(), (base != null) ? base.maxWait() : interactive.maxWait()),
				orDefault(pool.getMaxQueued(), (base != null) ? base.maxQueued() : PoolSettings.DEFAULT_MAX_QUEUED));
	}

	private @Nullable SpendSettings readSpend() {
		LlmResilienceProperties.Spend spend = this.properties.getSpend();
		return build(under(PREFIX + ".spend"),
				() -> new SpendSettings(spend.isEnabled(), spend.getWindow(), spend.getHistory(), spend.getMinWindows(),
						spend.getMinCalls(), spend.getOpenMultiple(), spend.getAlertMultiple(), spend.getAdoptAfter()));
	}

	/**
	 * Rules between the breaker's and the timeouts' properties, which no one record
	 * holds: a degrading provider should open its breaker through the slow-call trip
	 * before its calls start timing out, and a half-open trial must be able to finish.
	 */
	private void checkSlowCallsBelowTimeouts() {
		LlmResilienceProperties.Breaker breaker = this.properties.getBreaker();
		LlmResilienceProperties.Timeouts timeouts = this.properties.getTimeouts();
		requireBelow(PREFIX + ".breaker.slow-call-duration", breaker.getSlowCallDuration(),
				PREFIX + ".timeouts.attempt", timeouts.getAttempt());
		requireBelow(PREFIX + ".breaker.slow-first-token-duration", breaker.getSlowFirstTokenDuration(),
				PREFIX + ".timeouts.first-token", timeouts.getFirstToken());
		if (breaker.getHalfOpenTimeout() != null && timeouts.getAttempt() != null
				&& breaker.getHalfOpenTimeout().compareTo(timeouts.getAttempt()) <= 0) {
			add(new Problem(PREFIX + ".breaker.half-open-timeout", breaker.getHalfOpenTimeout().toString(),
					"must be above " + PREFIX + ".timeouts.attempt (" + timeouts.getAttempt()
							+ ") so that a trial can finish before it is given up"));
		}
		this.properties.getTargets().forEach((name, target) -> {
			String targetPrefix = PREFIX + ".targets." + name;
			Duration slowOverride = target.getBreaker().getSlowCallDuration();
			Duration attemptOverride = target.getTimeouts().getAttempt();
			if (slowOverride != null || attemptOverride != null) {
				requireBelow(
						(slowOverride != null) ? targetPrefix + ".breaker.slow-call-duration"
								: PREFIX + ".breaker.slow-call-duration",
						(slowOverride != null) ? slowOverride : breaker.getSlowCallDuration(),
						(attemptOverride != null) ? targetPrefix + ".timeouts.attempt" : PREFIX + ".timeouts.attempt",
						(attemptOverride != null) ? attemptOverride : timeouts.getAttempt());
			}
			Duration slowFirstTokenOverride = target.getBreaker().getSlowFirstTokenDuration();
			Duration firstTokenOverride = target.getTimeouts().getFirstToken();
			if (slowFirstTokenOverride != null
					|| (firstTokenOverride != null && breaker.getSlowFirstTokenDuration() != null)) {
				requireBelow(
						(slowFirstTokenOverride != null) ? targetPrefix + ".breaker.slow-first-token-duration"
								: PREFIX + ".breaker.slow-first-token-duration",
						(slowFirstTokenOverride != null) ? slowFirstTokenOverride : breaker.getSlowFirstTokenDuration(),
						(firstTokenOverride != null) ? targetPrefix + ".timeouts.first-token"
								: PREFIX + ".timeouts.first-token",
						(firstTokenOverride != null) ? firstTokenOverride : timeouts.getFirstToken());
			}
		});
	}

	private void requireBelow(String slowProperty, @Nullable Duration slow, String timeoutProperty,
			@Nullable Duration timeout) {
		if (slow != null && timeout != null && slow.compareTo(timeout) >= 0) {
			add(new Problem(slowProperty, slow.toString(), "must be below " + timeoutProperty + " (" + timeout
					+ ") so that a slowing provider opens the breaker before its calls time out"));
		}
	}

	/**
	 * Make a settings record; a component it rejects becomes a problem naming the
	 * component's property and the allowed range, once.
	 * @param propertyOf the property of each of the record's components, by component
	 * name
	 * @param settings makes the record from the property values
	 * @return the record, or {@code null} when it rejected a value
	 */
	private <T> @Nullable T build(Function<String, String> propertyOf, Supplier<T> settings) {
		try {
			return settings.get();
		}
		catch (InvalidSettingException ex) {
			add(new Problem(propertyOf.apply(ex.setting()), ex.value(), ex.requirement(propertyOf)));
			return null;
		}
		catch (IllegalArgumentException ex) {
			add(new Problem(PREFIX, "", String.valueOf(ex.getMessage())));
			return null;
		}
	}

	private void add(Problem problem) {
		if (!this.problems.contains(problem)) {
			this.problems.add(problem);
		}
	}

	/** A name the fleet's store could not carry (see {@link Target#nameProblem}). */
	private void checkName(String property, @Nullable String value) {
		String problem = Target.nameProblem(value);
		if (problem != null) {
			add(new Problem(property, quote(value), problem));
		}
	}

	/** A canary's settings: what is set here over the given defaults (or none). */
	private static CanarySettings canarySettings(Canary canary, @Nullable Canary defaults) {
		Canary base = (defaults != null) ? defaults : new Canary();
		return new CanarySettings(orDefault(canary.getPrompt(), base.getPrompt()),
				orDefault(canary.getTimeout(), orDefault(base.getTimeout(), CanarySettings.DEFAULT_TIMEOUT)),
				orDefault(canary.getJudge(), orDefault(base.getJudge(), CanarySettings.Judge.ANSWER)),
				orDefault(canary.getPattern(), base.getPattern()),
				orDefault(canary.getMaxTokens(), orDefault(base.getMaxTokens(), CanarySettings.DEFAULT_MAX_TOKENS)));
	}

	/**
	 * Whether a canary is on, over the given defaults (or none): as set, else when it has
	 * a prompt or a probe sends canaries.
	 */
	private static boolean isOn(Canary canary, @Nullable Canary defaults, boolean probe) {
		Boolean on = orDefault(canary.getEnabled(), (defaults != null) ? defaults.getEnabled() : null);
		if (on != null) {
			return on;
		}
		return orDefault(canary.getPrompt(), (defaults != null) ? defaults.getPrompt() : null) != null || probe;
	}

	private static void requireJudge(CanarySettings settings, @Nullable CanaryJudge judge, String property,
			List<Problem> problems) {
		if (settings.judge() == CanarySettings.Judge.PREDICATE && judge == null) {
			Problem problem = new Problem(property + ".judge", "predicate", "needs a CanaryJudge bean");
			if (!problems.contains(problem)) {
				problems.add(problem);
			}
		}
	}

	private static boolean isEmpty(Canary canary) {
		return canary.getEnabled() == null && canary.getPrompt() == null && canary.getTimeout() == null
				&& canary.getJudge() == null && canary.getPattern() == null && canary.getMaxTokens() == null;
	}

	/** Whether no breaker setting is overridden (the canary is not one). */
	private static boolean isEmpty(BreakerOverrides overrides) {
		return overrides.getSlidingWindowSize() == null && overrides.getMinimumCalls() == null
				&& overrides.getFailureRateThreshold() == null && overrides.getSlowCallDuration() == null
				&& overrides.getSlowCallRateThreshold() == null && overrides.getOpenDuration() == null
				&& overrides.getOpenDurationMax() == null && overrides.getSlowFirstTokenDuration() == null;
	}

	private static Set<String> overridden(Canary canary) {
		Set<String> overridden = new HashSet<>();
		addIfSet(overridden, "prompt", canary.getPrompt());
		addIfSet(overridden, "timeout", canary.getTimeout());
		addIfSet(overridden, "judge", canary.getJudge());
		addIfSet(overridden, "pattern", canary.getPattern());
		addIfSet(overridden, "maxTokens", canary.getMaxTokens());
		return overridden;
	}

	/**
	 * The property of each component below a prefix: {@code maxAttempts} is
	 * {@code prefix.max-attempts}.
	 */
	private static Function<String, String> under(String prefix) {
		return (component) -> prefix + "." + kebabCase(component);
	}

	/**
	 * The property of each component of a per-target override: the target's own when it
	 * sets the component, else the default's.
	 */
	private static Function<String, String> overriding(String targetPrefix, Set<String> overridden,
			String defaultPrefix) {
		return (component) -> (overridden.contains(component) ? targetPrefix : defaultPrefix) + "."
				+ kebabCase(component);
	}

	/**
	 * A record component's name as a property: {@code maxAttempts} is
	 * {@code max-attempts}.
	 */
	private static String kebabCase(String component) {
		StringBuilder name = new StringBuilder(component.length() + 4);
		for (int i = 0; i < component.length(); i++) {
			char c = component.charAt(i);
			if (Character.isUpperCase(c)) {
				name.append('-').append(Character.toLowerCase(c));
			}
			else {
				name.append(c);
			}
		}
		return name.toString();
	}

	private static void addIfSet(Set<String> overridden, String component, @Nullable Object value) {
		if (value != null) {
			overridden.add(component);
		}
	}

	private static <V> V orDefault(@Nullable V value, V defaultValue) {
		return (value != null) ? value : defaultValue;
	}

	static String quote(@Nullable Object value) {
		return (value != null) ? "'" + value + "'" : "null";
	}

	private static <T> T present(@Nullable T settings) {
		if (settings == null) {
			throw new IllegalStateException("Settings of invalid properties are not made");
		}
		return settings;
	}

}
