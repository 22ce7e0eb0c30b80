package io.github.llmresilience.autoconfigure;

import java.lang.reflect.RecordComponent;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.llmresilience.autoconfigure.InvalidLlmResiliencePropertiesException.Problem;
import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.canary.CanarySettings;
import io.github.llmresilience.classify.ClassificationRule;
import io.github.llmresilience.classify.ClassifierSettings;
import io.github.llmresilience.classify.UnclassifiedListener;
import io.github.llmresilience.execute.TimeoutSettings;
import io.github.llmresilience.execute.UnknownExceptions;
import io.github.llmresilience.fleet.FleetSettings;
import io.github.llmresilience.overload.OverloadSettings;
import io.github.llmresilience.pool.Capacity;
import io.github.llmresilience.pool.PartitionSettings;
import io.github.llmresilience.pool.PoolSettings;
import io.github.llmresilience.retry.RetrySettings;
import io.github.llmresilience.spend.Price;
import io.github.llmresilience.spend.SpendSettings;
import io.github.llmresilience.throttle.AccountSettings;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.throttle.ThrottleSettings;
import io.github.llmresilience.timeout.AdaptiveSettings;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of llm-resilience: the targets a request can be served from, the chains
 * that order them, and the thresholds of each mechanism. Validated at startup; a bad
 * value stops the application with a message naming the property. The ranges are the
 * settings records' own ({@link BreakerSettings}, {@link RetrySettings} and the others
 * check their components when built, as {@code LlmResilience.builder()} builds them): the
 * properties build each record and name the property of the component it rejects, so
 * startup and the builder accept the same values. Only rules between properties that no
 * one record holds are checked here.
 */
@ConfigurationProperties("llm.resilience")
public class LlmResilienceProperties implements InitializingBean {

	static final String PREFIX = "llm.resilience";

	/** What precedes the rejected value in a settings record's message. */
	private static final String VALUE_MARK = ", was ";

	/** Whether llm-resilience protects calls at all. */
	private boolean enabled = true;

	/** Places a request can be served from, by name. */
	private Map<String, TargetProperties> targets = new LinkedHashMap<>();

	/**
	 * Ordered lists of target names; a call names its chain and is served by the first
	 * usable target.
	 */
	private Map<String, List<String>> chains = new LinkedHashMap<>();

	/**
	 * The fallback of a chain, by chain name: the name of an {@code LlmFallback} bean
	 * that answers without any model when no target of the chain can serve. Used by the
	 * adapters that serve a chain with a known answer type (the chain's Spring AI
	 * ChatModel: an {@code LlmFallback<ChatResponse>}); a direct caller passes its own
	 * fallback to execute, stream or call.
	 */
	private Map<String, String> fallbacks = new LinkedHashMap<>();

	private final Breaker breaker = new Breaker();

	private final Retry retry = new Retry();

	private final Throttle throttle = new Throttle();

	private final Quota quota = new Quota();

	private final Credential credential = new Credential();

	private final Timeouts timeouts = new Timeouts();

	private final Classification classification = new Classification();

	private final Fleet fleet = new Fleet();

	private final ProviderOverload providerOverload = new ProviderOverload();

	private final Pools pools = new Pools();

	private final Spend spend = new Spend();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Map<String, TargetProperties> getTargets() {
		return this.targets;
	}

	public void setTargets(Map<String, TargetProperties> targets) {
		this.targets = targets;
	}

	public Map<String, List<String>> getChains() {
		return this.chains;
	}

	public void setChains(Map<String, List<String>> chains) {
		this.chains = chains;
	}

	public Map<String, String> getFallbacks() {
		return this.fallbacks;
	}

	public void setFallbacks(Map<String, String> fallbacks) {
		this.fallbacks = fallbacks;
	}

	public Breaker getBreaker() {
		return this.breaker;
	}

	public Retry getRetry() {
		return this.retry;
	}

	public Throttle getThrottle() {
		return this.throttle;
	}

	public Quota getQuota() {
		return this.quota;
	}

	public Credential getCredential() {
		return this.credential;
	}

	public Timeouts getTimeouts() {
		return this.timeouts;
	}

	public Classification getClassification() {
		return this.classification;
	}

	public Fleet getFleet() {
		return this.fleet;
	}

	public ProviderOverload getProviderOverload() {
		return this.providerOverload;
	}

	public Pools getPools() {
		return this.pools;
	}

	public Spend getSpend() {
		return this.spend;
	}

	@Override
	public void afterPropertiesSet() {
		List<Problem> problems = validate();
		if (!problems.isEmpty()) {
			throw new InvalidLlmResiliencePropertiesException(problems);
		}
	}

	/** A name the fleet's store could not carry (see {@link Target#nameProblem}). */
	static void checkName(String property, @Nullable String value, List<Problem> problems) {
		String problem = Target.nameProblem(value);
		if (problem != null) {
			problems.add(new Problem(property, quote(value), problem));
		}
	}

	/** Every problem of this configuration that needs no other bean to find. */
	List<Problem> validate() {
		List<Problem> problems = new ArrayList<>();
		this.targets.forEach((name, target) -> {
			String nameProblem = Target.nameProblem(name);
			if (nameProblem != null) {
				problems.add(new Problem(PREFIX + ".targets." + name, quote(name), "the target's name " + nameProblem));
			}
			target.validate(PREFIX + ".targets." + name, this.breaker, this.timeouts, problems);
		});
		this.chains.forEach((name, members) -> {
			String property = PREFIX + ".chains." + name;
			String nameProblem = Target.nameProblem(name);
			if (nameProblem != null) {
				problems.add(new Problem(property, quote(name), "the chain's name " + nameProblem));
			}
			if (members == null || members.isEmpty()) {
				problems.add(new Problem(property, "[]", "a chain needs at least one target"));
				return;
			}
			Set<String> seen = new HashSet<>();
			for (int i = 0; i < members.size(); i++) {
				String member = members.get(i);
				if (!this.targets.containsKey(member)) {
					problems
						.add(new Problem(property + "[" + i + "]", quote(member), "must name a target configured under "
								+ PREFIX + ".targets; known targets: " + this.targets.keySet()));
				}
				else if (!seen.add(member)) {
					problems.add(new Problem(property + "[" + i + "]", quote(member),
							"names the same target twice; retries of one target are set by " + PREFIX
									+ ".retry.max-attempts"));
				}
			}
		});
		this.fallbacks.forEach((chain, bean) -> {
			String property = PREFIX + ".fallbacks." + chain;
			if (!this.chains.containsKey(chain)) {
				problems.add(new Problem(property, quote(bean), "must be keyed by a chain configured under " + PREFIX
						+ ".chains; known chains: " + this.chains.keySet()));
			}
			else if (bean == null || bean.isBlank()) {
				problems.add(new Problem(property, quote(bean), "must name an LlmFallback bean"));
			}
		});
		this.breaker.validate(PREFIX + ".breaker", problems);
		this.retry.validate(PREFIX + ".retry", problems);
		this.throttle.validate(PREFIX + ".throttle", problems);
		this.quota.validate(PREFIX + ".quota", problems);
		this.credential.validate(PREFIX + ".credential", problems);
		this.timeouts.validate(PREFIX + ".timeouts", problems);
		this.fleet.validate(PREFIX + ".fleet", problems);
		this.classification.validate(PREFIX + ".classification", problems);
		this.providerOverload.validate(PREFIX + ".provider-overload", problems);
		this.pools.validate(PREFIX + ".pools", this.targets, problems);
		this.spend.validate(PREFIX + ".spend", problems);
		requireSlowCallsBelowTimeout(PREFIX + ".breaker.slow-call-duration", this.breaker.getSlowCallDuration(),
				PREFIX + ".timeouts.attempt", this.timeouts.getAttempt(), problems);
		requireSlowCallsBelowTimeout(PREFIX + ".breaker.slow-first-token-duration",
				this.breaker.getSlowFirstTokenDuration(), PREFIX + ".timeouts.first-token",
				this.timeouts.getFirstToken(), problems);
		if (this.breaker.getHalfOpenTimeout() != null && this.timeouts.getAttempt() != null
				&& this.breaker.getHalfOpenTimeout().compareTo(this.timeouts.getAttempt()) <= 0) {
			problems.add(new Problem(PREFIX + ".breaker.half-open-timeout",
					this.breaker.getHalfOpenTimeout().toString(), "must be above " + PREFIX + ".timeouts.attempt ("
							+ this.timeouts.getAttempt() + ") so that a trial can finish before it is given up"));
		}
		this.targets.forEach((name, target) -> {
			Duration slowOverride = target.getBreaker().getSlowCallDuration();
			Duration attemptOverride = target.getTimeouts().getAttempt();
			if (slowOverride != null || attemptOverride != null) {
				String targetPrefix = PREFIX + ".targets." + name;
				requireSlowCallsBelowTimeout(
						(slowOverride != null) ? targetPrefix + ".breaker.slow-call-duration"
								: PREFIX + ".breaker.slow-call-duration",
						(slowOverride != null) ? slowOverride : this.breaker.getSlowCallDuration(),
						(attemptOverride != null) ? targetPrefix + ".timeouts.attempt" : PREFIX + ".timeouts.attempt",
						(attemptOverride != null) ? attemptOverride : this.timeouts.getAttempt(), problems);
			}
			Duration slowFirstTokenOverride = target.getBreaker().getSlowFirstTokenDuration();
			Duration firstTokenOverride = target.getTimeouts().getFirstToken();
			if (slowFirstTokenOverride != null
					|| (firstTokenOverride != null && this.breaker.getSlowFirstTokenDuration() != null)) {
				String targetPrefix = PREFIX + ".targets." + name;
				requireSlowCallsBelowTimeout(
						(slowFirstTokenOverride != null) ? targetPrefix + ".breaker.slow-first-token-duration"
								: PREFIX + ".breaker.slow-first-token-duration",
						(slowFirstTokenOverride != null) ? slowFirstTokenOverride
								: this.breaker.getSlowFirstTokenDuration(),
						(firstTokenOverride != null) ? targetPrefix + ".timeouts.first-token"
								: PREFIX + ".timeouts.first-token",
						(firstTokenOverride != null) ? firstTokenOverride : this.timeouts.getFirstToken(), problems);
			}
		});
		return problems;
	}

	/**
	 * A degrading provider should open its breaker through the slow-call trip before its
	 * calls start timing out, so the slow-call duration must sit below the timeout.
	 */
	private static void requireSlowCallsBelowTimeout(String slowProperty, @Nullable Duration slow,
			String timeoutProperty, @Nullable Duration timeout, List<Problem> problems) {
		if (slow != null && timeout != null && slow.compareTo(timeout) >= 0) {
			problems.add(new Problem(slowProperty, slow.toString(), "must be below " + timeoutProperty + " (" + timeout
					+ ") so that a slowing provider opens the breaker before its calls time out"));
		}
	}

	static String quote(@Nullable Object value) {
		return (value != null) ? "'" + value + "'" : "null";
	}

	/**
	 * Build a settings record from property values, so that startup accepts exactly what
	 * the record accepts. A component the record rejects becomes a problem naming that
	 * component's property, unless an equal problem is listed already.
	 * @param <T> the record
	 * @param type the record's class, whose components may be named in its messages
	 * @param propertyOf the property of each component, by component name
	 * @param settings builds the record from the property values
	 * @param problems where a rejection is added
	 */
	private static <T extends Record> void build(Class<T> type, Function<String, String> propertyOf,
			Supplier<T> settings, List<Problem> problems) {
		try {
			settings.get();
		}
		catch (IllegalArgumentException ex) {
			Problem problem = problem(type, propertyOf, ex.getMessage());
			if (!problems.contains(problem)) {
				problems.add(problem);
			}
		}
	}

	/**
	 * The problem a settings record's message describes. A record's message starts with
	 * the component's name, states the range, and ends with the value
	 * ({@code "maxAttempts must be between 1 and 10, was 0"}); a component compared with
	 * is named with its value in parentheses ({@code "at least backoffBase (PT0.5S)"}).
	 * Each component name becomes its property.
	 */
	private static Problem problem(Class<? extends Record> type, Function<String, String> propertyOf,
			@Nullable String message) {
		String text = String.valueOf(message);
		int space = text.indexOf(' ');
		String component = (space > 0) ? text.substring(0, space) : "";
		Set<String> components = new LinkedHashSet<>();
		for (RecordComponent recordComponent : type.getRecordComponents()) {
			components.add(recordComponent.getName());
		}
		if (!components.contains(component)) {
			return new Problem(type.getSimpleName(), "", text);
		}
		int was = text.lastIndexOf(VALUE_MARK);
		String value = (was > space) ? text.substring(was + VALUE_MARK.length()) : "";
		String allowed = text.substring(space + 1, (was > space) ? was : text.length());
		for (String other : components) {
			allowed = Pattern.compile("\\b" + Pattern.quote(other) + " \\(")
				.matcher(allowed)
				.replaceAll(Matcher.quoteReplacement(propertyOf.apply(other) + " ("));
		}
		return new Problem(propertyOf.apply(component), value, allowed);
	}

	/**
	 * The property of each component below the given prefix: {@code maxAttempts} is
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

	private static <V> V orDefault(@Nullable V value, V defaultValue) {
		return (value != null) ? value : defaultValue;
	}

	private static void addIfSet(Set<String> overridden, String component, @Nullable Object value) {
		if (value != null) {
			overridden.add(component);
		}
	}

	/** One place a request can be served from. */
	public static class TargetProperties {

		/**
		 * Provider kind, which selects the error classifier: openai, azure-openai,
		 * anthropic, gemini, vertex-ai, bedrock, mistral, cohere, openai-compatible, or
		 * the id of your own classifier bean.
		 */
		private @Nullable String provider;

		/**
		 * Billing account or API project; its quota scope is account/model. Defaults to
		 * the target's name.
		 */
		private @Nullable String account;

		/** Model or deployment name. */
		private String model = "default";

		/** Region or data-center, part of the failure domain. */
		private String region = "global";

		/** Base URL of the provider's API. */
		private @Nullable URI baseUrl;

		/** API key; never logged, shown in health, metrics or exception messages. */
		private @Nullable String apiKey;

		/**
		 * Name of the Spring AI ChatModel bean that serves this target; a chain whose
		 * targets name chat models gets a ChatModel bean named {@code <chain>ChatModel}.
		 */
		private @Nullable String chatModel;

		private final BreakerOverrides breaker = new BreakerOverrides();

		private final TimeoutOverrides timeouts = new TimeoutOverrides();

		/**
		 * What the target's tokens cost; without a price its spend is counted in tokens.
		 */
		private final PriceProperties price = new PriceProperties();

		public @Nullable String getProvider() {
			return this.provider;
		}

		public void setProvider(@Nullable String provider) {
			this.provider = provider;
		}

		public @Nullable String getAccount() {
			return this.account;
		}

		public void setAccount(@Nullable String account) {
			this.account = account;
		}

		public String getModel() {
			return this.model;
		}

		public void setModel(String model) {
			this.model = model;
		}

		public String getRegion() {
			return this.region;
		}

		public void setRegion(String region) {
			this.region = region;
		}

		public @Nullable URI getBaseUrl() {
			return this.baseUrl;
		}

		public void setBaseUrl(@Nullable URI baseUrl) {
			this.baseUrl = baseUrl;
		}

		public @Nullable String getApiKey() {
			return this.apiKey;
		}

		public void setApiKey(@Nullable String apiKey) {
			this.apiKey = apiKey;
		}

		public @Nullable String getChatModel() {
			return this.chatModel;
		}

		public void setChatModel(@Nullable String chatModel) {
			this.chatModel = chatModel;
		}

		public BreakerOverrides getBreaker() {
			return this.breaker;
		}

		public TimeoutOverrides getTimeouts() {
			return this.timeouts;
		}

		public PriceProperties getPrice() {
			return this.price;
		}

		void validate(String property, Breaker breakerDefaults, Timeouts timeoutDefaults, List<Problem> problems) {
			checkName(property + ".provider", this.provider, problems);
			checkName(property + ".account", this.account, problems);
			checkName(property + ".model", this.model, problems);
			checkName(property + ".region", this.region, problems);
			if (this.provider == null || this.provider.isBlank()) {
				problems.add(new Problem(property + ".provider", "null",
						"every target needs a provider (provider id such as openai or anthropic)"));
			}
			if (this.model == null || this.model.isBlank()) {
				problems.add(new Problem(property + ".model", quote(this.model), "must not be blank"));
			}
			if (this.region == null || this.region.isBlank()) {
				problems.add(new Problem(property + ".region", quote(this.region), "must not be blank"));
			}
			this.breaker.validate(property + ".breaker", breakerDefaults, problems);
			this.timeouts.validate(property + ".timeouts", timeoutDefaults, problems);
			this.price.validate(property + ".price", problems);
		}

		@Override
		public String toString() {
			return "TargetProperties[provider=" + this.provider + ", account=" + this.account + ", model=" + this.model
					+ ", region=" + this.region + ", baseUrl=" + this.baseUrl + ", apiKey="
					+ ((this.apiKey != null) ? "******" : "none") + "]";
		}

	}

	/** Circuit breakers, one per failure domain. */
	public static class Breaker {

		/**
		 * Which target attributes name a failure domain (one breaker each): any of
		 * provider, model, region, account, target.
		 */
		private List<String> failureDomain = new ArrayList<>(List.of("provider", "model", "region"));

		/** Number of calls the failure and slow-call rates are computed over. */
		private int slidingWindowSize = 20;

		/** Calls needed in the window before the rates are evaluated. */
		private int minimumCalls = 10;

		/** Failure rate, in percent, at or above which the breaker opens. */
		private float failureRateThreshold = 50;

		/**
		 * A successful call slower than this counts as slow; keep it below
		 * timeouts.attempt.
		 */
		private Duration slowCallDuration = Duration.ofSeconds(10);

		/** Slow-call rate, in percent, at or above which the breaker opens. */
		private float slowCallRateThreshold = 50;

		/** How long the breaker stays open before one trial call. */
		private Duration openDuration = Duration.ofSeconds(30);

		/**
		 * Longest open duration: each failed trial doubles the open duration up to this.
		 */
		private Duration openDurationMax = Duration.ofMinutes(15);

		/** Trial calls let through when half-open, one at a time. */
		private int halfOpenCalls = 1;

		/**
		 * A stream whose first element comes later than this counts as slow; below
		 * timeouts.first-token, by default 60% of it.
		 */
		private @Nullable Duration slowFirstTokenDuration;

		/**
		 * Longest time a half-open breaker waits for its trial to report; an unreported
		 * trial then counts as failed.
		 */
		private Duration halfOpenTimeout = BreakerSettings.DEFAULT_HALF_OPEN_TIMEOUT;

		private final Canary canary = new Canary();

		public List<String> getFailureDomain() {
			return this.failureDomain;
		}

		public void setFailureDomain(List<String> failureDomain) {
			this.failureDomain = failureDomain;
		}

		public int getSlidingWindowSize() {
			return this.slidingWindowSize;
		}

		public void setSlidingWindowSize(int slidingWindowSize) {
			this.slidingWindowSize = slidingWindowSize;
		}

		public int getMinimumCalls() {
			return this.minimumCalls;
		}

		public void setMinimumCalls(int minimumCalls) {
			this.minimumCalls = minimumCalls;
		}

		public float getFailureRateThreshold() {
			return this.failureRateThreshold;
		}

		public void setFailureRateThreshold(float failureRateThreshold) {
			this.failureRateThreshold = failureRateThreshold;
		}

		public Duration getSlowCallDuration() {
			return this.slowCallDuration;
		}

		public void setSlowCallDuration(Duration slowCallDuration) {
			this.slowCallDuration = slowCallDuration;
		}

		public float getSlowCallRateThreshold() {
			return this.slowCallRateThreshold;
		}

		public void setSlowCallRateThreshold(float slowCallRateThreshold) {
			this.slowCallRateThreshold = slowCallRateThreshold;
		}

		public Duration getOpenDuration() {
			return this.openDuration;
		}

		public void setOpenDuration(Duration openDuration) {
			this.openDuration = openDuration;
		}

		public Duration getOpenDurationMax() {
			return this.openDurationMax;
		}

		public void setOpenDurationMax(Duration openDurationMax) {
			this.openDurationMax = openDurationMax;
		}

		public int getHalfOpenCalls() {
			return this.halfOpenCalls;
		}

		public void setHalfOpenCalls(int halfOpenCalls) {
			this.halfOpenCalls = halfOpenCalls;
		}

		public @Nullable Duration getSlowFirstTokenDuration() {
			return this.slowFirstTokenDuration;
		}

		public void setSlowFirstTokenDuration(@Nullable Duration slowFirstTokenDuration) {
			this.slowFirstTokenDuration = slowFirstTokenDuration;
		}

		public Duration getHalfOpenTimeout() {
			return this.halfOpenTimeout;
		}

		public void setHalfOpenTimeout(Duration halfOpenTimeout) {
			this.halfOpenTimeout = halfOpenTimeout;
		}

		public Canary getCanary() {
			return this.canary;
		}

		void validate(String property, List<Problem> problems) {
			this.canary.validate(property + ".canary", null, problems);
			Set<String> allowed = Set.of("provider", "model", "region", "account", "target");
			if (this.failureDomain == null || this.failureDomain.isEmpty()
					|| !allowed.containsAll(this.failureDomain)) {
				problems.add(new Problem(property + ".failure-domain", String.valueOf(this.failureDomain),
						"must list one or more of " + allowed));
			}
			build(BreakerSettings.class, under(property),
					() -> new BreakerSettings(this.slidingWindowSize, this.minimumCalls, this.failureRateThreshold,
							this.slowCallDuration, this.slowCallRateThreshold, this.openDuration, this.openDurationMax,
							this.halfOpenCalls,
							orDefault(this.slowFirstTokenDuration, BreakerSettings.DEFAULT_SLOW_FIRST_TOKEN),
							this.halfOpenTimeout),
					problems);
		}

	}

	/**
	 * Per-target breaker settings; unset values take the llm.resilience.breaker defaults.
	 */
	public static class BreakerOverrides {

		/**
		 * Number of calls the rates are computed over, for this target's failure domain.
		 */
		private @Nullable Integer slidingWindowSize;

		/**
		 * Calls needed in the window before the rates are evaluated, for this target's
		 * failure domain.
		 */
		private @Nullable Integer minimumCalls;

		/** Failure rate, in percent, at or above which this target's breaker opens. */
		private @Nullable Float failureRateThreshold;

		/** A successful call of this target slower than this counts as slow. */
		private @Nullable Duration slowCallDuration;

		/** Slow-call rate, in percent, at or above which this target's breaker opens. */
		private @Nullable Float slowCallRateThreshold;

		/** How long this target's breaker stays open before one trial call. */
		private @Nullable Duration openDuration;

		/** Longest open duration of this target's breaker. */
		private @Nullable Duration openDurationMax;

		/**
		 * A stream of this target whose first element comes later than this counts as
		 * slow.
		 */
		private @Nullable Duration slowFirstTokenDuration;

		private final Canary canary = new Canary();

		public @Nullable Integer getSlidingWindowSize() {
			return this.slidingWindowSize;
		}

		public void setSlidingWindowSize(@Nullable Integer slidingWindowSize) {
			this.slidingWindowSize = slidingWindowSize;
		}

		public @Nullable Integer getMinimumCalls() {
			return this.minimumCalls;
		}

		public void setMinimumCalls(@Nullable Integer minimumCalls) {
			this.minimumCalls = minimumCalls;
		}

		public @Nullable Float getFailureRateThreshold() {
			return this.failureRateThreshold;
		}

		public void setFailureRateThreshold(@Nullable Float failureRateThreshold) {
			this.failureRateThreshold = failureRateThreshold;
		}

		public @Nullable Duration getSlowCallDuration() {
			return this.slowCallDuration;
		}

		public void setSlowCallDuration(@Nullable Duration slowCallDuration) {
			this.slowCallDuration = slowCallDuration;
		}

		public @Nullable Float getSlowCallRateThreshold() {
			return this.slowCallRateThreshold;
		}

		public void setSlowCallRateThreshold(@Nullable Float slowCallRateThreshold) {
			this.slowCallRateThreshold = slowCallRateThreshold;
		}

		public @Nullable Duration getOpenDuration() {
			return this.openDuration;
		}

		public void setOpenDuration(@Nullable Duration openDuration) {
			this.openDuration = openDuration;
		}

		public @Nullable Duration getOpenDurationMax() {
			return this.openDurationMax;
		}

		public void setOpenDurationMax(@Nullable Duration openDurationMax) {
			this.openDurationMax = openDurationMax;
		}

		public @Nullable Duration getSlowFirstTokenDuration() {
			return this.slowFirstTokenDuration;
		}

		public void setSlowFirstTokenDuration(@Nullable Duration slowFirstTokenDuration) {
			this.slowFirstTokenDuration = slowFirstTokenDuration;
		}

		public Canary getCanary() {
			return this.canary;
		}

		/** Whether no breaker setting is overridden (the canary is not one). */
		boolean isEmpty() {
			return this.slidingWindowSize == null && this.minimumCalls == null && this.failureRateThreshold == null
					&& this.slowCallDuration == null && this.slowCallRateThreshold == null && this.openDuration == null
					&& this.openDurationMax == null && this.slowFirstTokenDuration == null;
		}

		/**
		 * Check the breaker this target gets: its overrides over the defaults. A rule
		 * between an override and a default (open-duration-max at least open-duration)
		 * names both properties.
		 */
		void validate(String property, Breaker defaults, List<Problem> problems) {
			this.canary.validate(property + ".canary", defaults.getCanary(), problems);
			if (isEmpty()) {
				return;
			}
			Set<String> overridden = new LinkedHashSet<>();
			addIfSet(overridden, "slidingWindowSize", this.slidingWindowSize);
			addIfSet(overridden, "minimumCalls", this.minimumCalls);
			addIfSet(overridden, "failureRateThreshold", this.failureRateThreshold);
			addIfSet(overridden, "slowCallDuration", this.slowCallDuration);
			addIfSet(overridden, "slowCallRateThreshold", this.slowCallRateThreshold);
			addIfSet(overridden, "openDuration", this.openDuration);
			addIfSet(overridden, "openDurationMax", this.openDurationMax);
			addIfSet(overridden, "slowFirstTokenDuration", this.slowFirstTokenDuration);
			build(BreakerSettings.class, overriding(property, overridden, PREFIX + ".breaker"),
					() -> new BreakerSettings(orDefault(this.slidingWindowSize, defaults.getSlidingWindowSize()),
							orDefault(this.minimumCalls, defaults.getMinimumCalls()),
							orDefault(this.failureRateThreshold, defaults.getFailureRateThreshold()),
							orDefault(this.slowCallDuration, defaults.getSlowCallDuration()),
							orDefault(this.slowCallRateThreshold, defaults.getSlowCallRateThreshold()),
							orDefault(this.openDuration, defaults.getOpenDuration()),
							orDefault(this.openDurationMax, defaults.getOpenDurationMax()), defaults.getHalfOpenCalls(),
							orDefault(this.slowFirstTokenDuration,
									orDefault(defaults.getSlowFirstTokenDuration(),
											BreakerSettings.DEFAULT_SLOW_FIRST_TOKEN)),
							defaults.getHalfOpenTimeout()),
					problems);
		}

	}

	/**
	 * A failure domain's canary: when its breaker's open time ends, the library sends
	 * this request off the call path and its judged answer is the half-open trial; calls
	 * are skipped until it passes. Under llm.resilience.breaker.canary for every target,
	 * under a target's breaker.canary for that target (unset values take the defaults).
	 */
	public static class Canary {

		/**
		 * Whether the target's failure domain has a canary; unset means yes when a prompt
		 * is set or a CanaryProbe bean exists.
		 */
		private @Nullable Boolean enabled;

		/**
		 * Prompt the library sends in the target's vendor format (openai, azure-openai,
		 * openai-compatible, mistral, anthropic, gemini) to its base-url with its
		 * api-key.
		 */
		private @Nullable String prompt;

		/**
		 * Time the canary's answer has; a later one is a failed trial. Defaults to 10s.
		 */
		private @Nullable Duration timeout;

		/**
		 * What the answer's text must be to pass: answer (any text), json, regex (see
		 * pattern) or predicate (the CanaryJudge bean). Defaults to answer.
		 */
		private CanarySettings.@Nullable Judge judge;

		/** Regular expression the answer must contain a match of, for judge: regex. */
		private @Nullable String pattern;

		/** Longest answer to ask for, in tokens. Defaults to 64. */
		private @Nullable Integer maxTokens;

		public @Nullable Boolean getEnabled() {
			return this.enabled;
		}

		public void setEnabled(@Nullable Boolean enabled) {
			this.enabled = enabled;
		}

		public @Nullable String getPrompt() {
			return this.prompt;
		}

		public void setPrompt(@Nullable String prompt) {
			this.prompt = prompt;
		}

		public @Nullable Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(@Nullable Duration timeout) {
			this.timeout = timeout;
		}

		public CanarySettings.@Nullable Judge getJudge() {
			return this.judge;
		}

		public void setJudge(CanarySettings.@Nullable Judge judge) {
			this.judge = judge;
		}

		public @Nullable String getPattern() {
			return this.pattern;
		}

		public void setPattern(@Nullable String pattern) {
			this.pattern = pattern;
		}

		public @Nullable Integer getMaxTokens() {
			return this.maxTokens;
		}

		public void setMaxTokens(@Nullable Integer maxTokens) {
			this.maxTokens = maxTokens;
		}

		/** Whether nothing is set here. */
		boolean isEmpty() {
			return this.enabled == null && this.prompt == null && this.timeout == null && this.judge == null
					&& this.pattern == null && this.maxTokens == null;
		}

		/**
		 * Whether the canary is on, over the given defaults (or none).
		 * @param probe whether a CanaryProbe bean sends canaries
		 */
		boolean isOn(@Nullable Canary defaults, boolean probe) {
			Boolean on = orDefault(this.enabled, (defaults != null) ? defaults.enabled : null);
			if (on != null) {
				return on;
			}
			return orDefault(this.prompt, (defaults != null) ? defaults.prompt : null) != null || probe;
		}

		/** The settings: these values over the given defaults (or none). */
		CanarySettings toSettings(@Nullable Canary defaults) {
			Canary base = (defaults != null) ? defaults : new Canary();
			return new CanarySettings(orDefault(this.prompt, base.prompt),
					orDefault(this.timeout, orDefault(base.timeout, CanarySettings.DEFAULT_TIMEOUT)),
					orDefault(this.judge, orDefault(base.judge, CanarySettings.Judge.ANSWER)),
					orDefault(this.pattern, base.pattern),
					orDefault(this.maxTokens, orDefault(base.maxTokens, CanarySettings.DEFAULT_MAX_TOKENS)));
		}

		void validate(String property, @Nullable Canary defaults, List<Problem> problems) {
			if (defaults != null && isEmpty()) {
				return;
			}
			Set<String> overridden = new LinkedHashSet<>();
			addIfSet(overridden, "prompt", this.prompt);
			addIfSet(overridden, "timeout", this.timeout);
			addIfSet(overridden, "judge", this.judge);
			addIfSet(overridden, "pattern", this.pattern);
			addIfSet(overridden, "maxTokens", this.maxTokens);
			build(CanarySettings.class,
					(defaults != null) ? overriding(property, overridden, PREFIX + ".breaker.canary") : under(property),
					() -> toSettings(defaults), problems);
		}

	}

	/** Same-target retries and the retry budget. */
	public static class Retry {

		/**
		 * Attempts per target for one call, the first included; 1 disables same-target
		 * retries.
		 */
		private int maxAttempts = 3;

		/**
		 * Backoff before the first retry; each retry doubles it, and full jitter picks a
		 * random wait below it.
		 */
		private Duration backoffBase = Duration.ofMillis(500);

		/** Longest backoff before a retry. */
		private Duration backoffMax = Duration.ofSeconds(30);

		/** Retries allowed as a share of calls over the budget window (0.1 = 10 %). */
		private double budgetRatio = 0.1;

		/** Window over which the retry budget counts calls and retries. */
		private Duration budgetWindow = Duration.ofSeconds(10);

		/** Retries always allowed in a window, whatever the ratio says. */
		private int budgetMinimum = 3;

		public int getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(int maxAttempts) {
			this.maxAttempts = maxAttempts;
		}

		public Duration getBackoffBase() {
			return this.backoffBase;
		}

		public void setBackoffBase(Duration backoffBase) {
			this.backoffBase = backoffBase;
		}

		public Duration getBackoffMax() {
			return this.backoffMax;
		}

		public void setBackoffMax(Duration backoffMax) {
			this.backoffMax = backoffMax;
		}

		public double getBudgetRatio() {
			return this.budgetRatio;
		}

		public void setBudgetRatio(double budgetRatio) {
			this.budgetRatio = budgetRatio;
		}

		public Duration getBudgetWindow() {
			return this.budgetWindow;
		}

		public void setBudgetWindow(Duration budgetWindow) {
			this.budgetWindow = budgetWindow;
		}

		public int getBudgetMinimum() {
			return this.budgetMinimum;
		}

		public void setBudgetMinimum(int budgetMinimum) {
			this.budgetMinimum = budgetMinimum;
		}

		void validate(String property, List<Problem> problems) {
			build(RetrySettings.class, under(property), () -> new RetrySettings(this.maxAttempts, this.backoffBase,
					this.backoffMax, this.budgetRatio, this.budgetWindow, this.budgetMinimum), problems);
		}

	}

	/** The throttle gate of each quota scope (account/model). */
	public static class Throttle {

		/** How long a scope stays gated after a rate limit that named no wait. */
		private Duration defaultWait = Duration.ofSeconds(5);

		/** Longest gate; a longer wait hint is cut to this. */
		private Duration maxWait = Duration.ofSeconds(300);

		/**
		 * Shortest wait hint believed; a shorter one (zero, a reset already past) gates
		 * for default-wait. Below default-wait; 100 ms by default, or half of
		 * default-wait when that is shorter.
		 */
		private @Nullable Duration minWait;

		/**
		 * A rate limit whose provider-stated reset is further off than this is a quota:
		 * the account is parked.
		 */
		private Duration quotaThreshold = Duration.ofHours(1);

		public Duration getDefaultWait() {
			return this.defaultWait;
		}

		public void setDefaultWait(Duration defaultWait) {
			this.defaultWait = defaultWait;
		}

		public Duration getMaxWait() {
			return this.maxWait;
		}

		public void setMaxWait(Duration maxWait) {
			this.maxWait = maxWait;
		}

		public @Nullable Duration getMinWait() {
			return this.minWait;
		}

		public void setMinWait(@Nullable Duration minWait) {
			this.minWait = minWait;
		}

		/** The settings these properties make (which check themselves). */
		ThrottleSettings settings() {
			return (this.minWait != null) ? new ThrottleSettings(this.defaultWait, this.maxWait, this.minWait)
					: new ThrottleSettings(this.defaultWait, this.maxWait);
		}

		public Duration getQuotaThreshold() {
			return this.quotaThreshold;
		}

		public void setQuotaThreshold(Duration quotaThreshold) {
			this.quotaThreshold = quotaThreshold;
		}

		void validate(String property, List<Problem> problems) {
			build(ThrottleSettings.class, under(property), this::settings, problems);
			build(ClassifierSettings.class, under(property),
					() -> new ClassifierSettings(Clock.systemUTC(), this.quotaThreshold, UnclassifiedListener.NONE),
					problems);
			// A rule between two records: a hint the gate would cut must not be a quota.
			if (this.maxWait != null && this.quotaThreshold != null
					&& this.quotaThreshold.compareTo(this.maxWait) < 0) {
				problems.add(new Problem(property + ".quota-threshold", this.quotaThreshold.toString(),
						"must be at least " + property + ".max-wait (" + this.maxWait + ")"));
			}
		}

	}

	/** Accounts parked by a quota answer. */
	public static class Quota {

		/**
		 * How long an account is parked after a quota answer that named no reset time.
		 */
		private Duration defaultPark = Duration.ofHours(1);

		/** Longest park, whatever the provider's hint says. */
		private Duration maxPark = Duration.ofDays(31);

		public Duration getDefaultPark() {
			return this.defaultPark;
		}

		public void setDefaultPark(Duration defaultPark) {
			this.defaultPark = defaultPark;
		}

		public Duration getMaxPark() {
			return this.maxPark;
		}

		public void setMaxPark(Duration maxPark) {
			this.maxPark = maxPark;
		}

		void validate(String property, List<Problem> problems) {
			AccountSettings defaults = AccountSettings.defaults();
			build(AccountSettings.class, under(property), () -> new AccountSettings(this.defaultPark, this.maxPark,
					defaults.lockAfter(), defaults.lockDuration(), defaults.lockDurationMax()), problems);
		}

	}

	/**
	 * Fleet mode: breakers, gates, parks, locks and operator commands shared by every pod
	 * of a namespace through Redis ({@code spring.data.redis.*}).
	 */
	public static class Fleet {

		/** The namespace when neither it nor {@code spring.application.name} is set. */
		static final String DEFAULT_NAMESPACE = "llm-resilience";

		/**
		 * Whether pods share state through Redis; needs Spring Data Redis with Lettuce
		 * and Boot's Redis settings.
		 */
		private boolean enabled;

		/**
		 * Pods with the same namespace share one state; defaults to
		 * spring.application.name.
		 */
		private @Nullable String namespace;

		/** This pod's id in the fleet; defaults to the host name and a random suffix. */
		private @Nullable String pod;

		/** How often a pod sends its counts and reads the fleet's state. */
		private Duration syncInterval = Duration.ofSeconds(1);

		/** The time window the fleet's failure and slow-call rates are counted over. */
		private Duration window = Duration.ofSeconds(30);

		/**
		 * How often an open failure domain lets one trial through for the whole fleet,
		 * when shorter than the breaker's open duration; unset follows the open duration.
		 */
		private @Nullable Duration probeInterval;

		/**
		 * The longest one pod holds the right to probe a domain before another may; a
		 * holder that stops syncing loses it within three sync intervals (at least two
		 * command timeouts and 1 s).
		 */
		private Duration probeLease = Duration.ofMinutes(1);

		/**
		 * The most a gate learnt from the fleet ends later at random, so that pods do not
		 * all return at once.
		 */
		private Duration gateJitter = Duration.ofMillis(250);

		/**
		 * The longest one round trip to Redis may take before the pod counts itself
		 * disconnected and decides alone; also the longest the application's start waits
		 * for the first sync.
		 */
		private Duration commandTimeout = Duration.ofSeconds(1);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public @Nullable String getNamespace() {
			return this.namespace;
		}

		public void setNamespace(@Nullable String namespace) {
			this.namespace = namespace;
		}

		public @Nullable String getPod() {
			return this.pod;
		}

		public void setPod(@Nullable String pod) {
			this.pod = pod;
		}

		public Duration getSyncInterval() {
			return this.syncInterval;
		}

		public void setSyncInterval(Duration syncInterval) {
			this.syncInterval = syncInterval;
		}

		public Duration getWindow() {
			return this.window;
		}

		public void setWindow(Duration window) {
			this.window = window;
		}

		public @Nullable Duration getProbeInterval() {
			return this.probeInterval;
		}

		public void setProbeInterval(@Nullable Duration probeInterval) {
			this.probeInterval = probeInterval;
		}

		public Duration getProbeLease() {
			return this.probeLease;
		}

		public void setProbeLease(Duration probeLease) {
			this.probeLease = probeLease;
		}

		public Duration getGateJitter() {
			return this.gateJitter;
		}

		public void setGateJitter(Duration gateJitter) {
			this.gateJitter = gateJitter;
		}

		public Duration getCommandTimeout() {
			return this.commandTimeout;
		}

		public void setCommandTimeout(Duration commandTimeout) {
			this.commandTimeout = commandTimeout;
		}

		/** The settings, with the namespace the application's name gives. */
		FleetSettings settings(@Nullable String applicationName) {
			String namespace = (this.namespace != null) ? this.namespace
					: (applicationName != null && !applicationName.isBlank()) ? applicationName : DEFAULT_NAMESPACE;
			return new FleetSettings(namespace, this.syncInterval, this.window, this.probeInterval, this.probeLease,
					this.gateJitter, this.commandTimeout);
		}

		void validate(String property, List<Problem> problems) {
			build(FleetSettings.class, under(property), () -> settings(DEFAULT_NAMESPACE), problems);
			if (this.pod != null && !this.pod.matches("[A-Za-z0-9._-]{1,100}")) {
				problems.add(new Problem(property + ".pod", quote(this.pod),
						"must be 1 to 100 letters, digits, '.', '-' or '_'"));
			}
		}

	}

	/** Accounts locked by credential errors. */
	public static class Credential {

		/** Consecutive credential errors that lock an account. */
		private int lockAfter = 2;

		/** Cool-off of the first lock; each new lock doubles it. */
		private Duration lockDuration = Duration.ofMinutes(1);

		/** Longest cool-off. */
		private Duration lockDurationMax = Duration.ofHours(1);

		public int getLockAfter() {
			return this.lockAfter;
		}

		public void setLockAfter(int lockAfter) {
			this.lockAfter = lockAfter;
		}

		public Duration getLockDuration() {
			return this.lockDuration;
		}

		public void setLockDuration(Duration lockDuration) {
			this.lockDuration = lockDuration;
		}

		public Duration getLockDurationMax() {
			return this.lockDurationMax;
		}

		public void setLockDurationMax(Duration lockDurationMax) {
			this.lockDurationMax = lockDurationMax;
		}

		void validate(String property, List<Problem> problems) {
			AccountSettings defaults = AccountSettings.defaults();
			build(AccountSettings.class, under(property), () -> new AccountSettings(defaults.defaultPark(),
					defaults.maxPark(), this.lockAfter, this.lockDuration, this.lockDurationMax), problems);
		}

	}

	/** Time limits of each attempt. */
	public static class Timeouts {

		/**
		 * Longest time one non-streaming attempt may take before it counts as a timeout.
		 */
		private Duration attempt = Duration.ofSeconds(30);

		/**
		 * Longest time a streaming attempt may take to its first element; past it the
		 * next target is tried.
		 */
		private Duration firstToken = Duration.ofSeconds(5);

		/**
		 * Longest gap between two elements of a stream after the first; a stream's total
		 * length is not limited.
		 */
		private Duration stall = Duration.ofSeconds(10);

		/**
		 * Deadline of a whole call (every attempt, backoff and failover; a stream's up to
		 * its first element) when the caller gives none.
		 */
		private Duration call = TimeoutSettings.DEFAULT_CALL;

		private final Adaptive adaptive = new Adaptive();

		public Duration getAttempt() {
			return this.attempt;
		}

		public void setAttempt(Duration attempt) {
			this.attempt = attempt;
		}

		public Duration getFirstToken() {
			return this.firstToken;
		}

		public void setFirstToken(Duration firstToken) {
			this.firstToken = firstToken;
		}

		public Duration getStall() {
			return this.stall;
		}

		public void setStall(Duration stall) {
			this.stall = stall;
		}

		public Duration getCall() {
			return this.call;
		}

		public void setCall(Duration call) {
			this.call = call;
		}

		public Adaptive getAdaptive() {
			return this.adaptive;
		}

		void validate(String property, List<Problem> problems) {
			build(TimeoutSettings.class, under(property), () -> new TimeoutSettings(this.attempt, this.firstToken,
					this.stall, AdaptiveSettings.defaults(), this.call), problems);
			this.adaptive.validate(property + ".adaptive", problems);
		}

	}

	/** How answers and exceptions are read. */
	public static class Classification {

		/**
		 * Whose fault an exception no extractor recognises is: caller (surfaces
		 * unchanged, never retried or recorded) or provider (an availability failure).
		 */
		private UnknownExceptions unknownExceptions = UnknownExceptions.CALLER;

		public UnknownExceptions getUnknownExceptions() {
			return this.unknownExceptions;
		}

		public void setUnknownExceptions(UnknownExceptions unknownExceptions) {
			this.unknownExceptions = unknownExceptions;
		}

		/**
		 * Rules tried before each provider's built-in table, in order: the first whose
		 * every condition holds decides the answer's outcome. At runtime the endpoint can
		 * add, replace and remove them.
		 */
		private List<Rule> rules = new ArrayList<>();

		public List<Rule> getRules() {
			return this.rules;
		}

		public void setRules(List<Rule> rules) {
			this.rules = rules;
		}

		void validate(String property, List<Problem> problems) {
			for (int i = 0; i < this.rules.size(); i++) {
				Rule rule = this.rules.get(i);
				String ruleProperty = property + ".rules[" + i + "]";
				if (rule == null) {
					problems.add(new Problem(ruleProperty, "null", "a rule needs an outcome and a condition"));
					continue;
				}
				try {
					rule.toRule();
				}
				catch (IllegalArgumentException ex) {
					problems.add(ruleProblem(ruleProperty, String.valueOf(ex.getMessage())));
				}
			}
		}

		/**
		 * The problem a rule's message describes: it starts with the component
		 * ({@code outcome must be one of ..., was 'FOO'}), or with {@code rule} for the
		 * rule as a whole.
		 */
		private static Problem ruleProblem(String ruleProperty, String message) {
			int space = message.indexOf(' ');
			String component = (space > 0) ? message.substring(0, space) : "";
			String property = switch (component) {
				case "provider", "status", "type", "outcome", "wait" -> ruleProperty + "." + component;
				case "messageContains" -> ruleProperty + ".message-contains";
				default -> ruleProperty;
			};
			int was = message.lastIndexOf(VALUE_MARK);
			String value = (was > space) ? message.substring(was + VALUE_MARK.length()) : "";
			String allowed = message.substring(space + 1, (was > space) ? was : message.length());
			return new Problem(property, value, allowed);
		}

	}

	/**
	 * One classification rule: its conditions (at least one) and the outcome of an answer
	 * that meets them all.
	 */
	public static class Rule {

		/**
		 * Provider id the rule applies to (openai, anthropic, ...); every provider when
		 * absent.
		 */
		private @Nullable String provider;

		/** HTTP status (429) or class of statuses (4xx); any status when absent. */
		private @Nullable String status;

		/**
		 * The provider's error type or code, matched exactly against every type and code
		 * field of the answer; any when absent.
		 */
		private @Nullable String type;

		/**
		 * Text the provider's error message contains, case-insensitive; any when absent.
		 */
		private @Nullable String messageContains;

		/**
		 * What a matching answer means: AVAILABILITY, THROTTLED, QUOTA, CREDENTIAL,
		 * REQUEST or CONTENT_FILTER. Required.
		 */
		private @Nullable String outcome;

		/** Wait hint of a matching answer that names none itself. */
		private @Nullable Duration wait;

		public @Nullable String getProvider() {
			return this.provider;
		}

		public void setProvider(@Nullable String provider) {
			this.provider = provider;
		}

		public @Nullable String getStatus() {
			return this.status;
		}

		public void setStatus(@Nullable String status) {
			this.status = status;
		}

		public @Nullable String getType() {
			return this.type;
		}

		public void setType(@Nullable String type) {
			this.type = type;
		}

		public @Nullable String getMessageContains() {
			return this.messageContains;
		}

		public void setMessageContains(@Nullable String messageContains) {
			this.messageContains = messageContains;
		}

		public @Nullable String getOutcome() {
			return this.outcome;
		}

		public void setOutcome(@Nullable String outcome) {
			this.outcome = outcome;
		}

		public @Nullable Duration getWait() {
			return this.wait;
		}

		public void setWait(@Nullable Duration wait) {
			this.wait = wait;
		}

		/**
		 * The rule these properties describe.
		 * @throws IllegalArgumentException naming the component out of its range
		 */
		public ClassificationRule toRule() {
			ClassificationRule parsed = ClassificationRule.parse(this.provider, this.status, this.type,
					this.messageContains, this.outcome, null);
			return new ClassificationRule(parsed.provider(), parsed.status(), parsed.type(), parsed.messageContains(),
					parsed.outcome(), this.wait);
		}

	}

	/**
	 * Provider-wide overload: an answer that speaks for a provider's whole fleet (a 529,
	 * an overloaded_error, "the service is overloaded") marks the provider, and chains
	 * try its targets after every other provider's meanwhile.
	 */
	public static class ProviderOverload {

		/** Whether such an answer marks its provider overloaded. */
		private boolean enabled = true;

		/** How long a provider stays marked when the answer named no wait. */
		private Duration defaultDuration = OverloadSettings.DEFAULT_DURATION;

		/** Longest mark; a longer wait hint is cut to this. */
		private Duration maxDuration = OverloadSettings.DEFAULT_MAX_DURATION;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getDefaultDuration() {
			return this.defaultDuration;
		}

		public void setDefaultDuration(Duration defaultDuration) {
			this.defaultDuration = defaultDuration;
		}

		public Duration getMaxDuration() {
			return this.maxDuration;
		}

		public void setMaxDuration(Duration maxDuration) {
			this.maxDuration = maxDuration;
		}

		OverloadSettings toSettings() {
			return new OverloadSettings(this.enabled, this.defaultDuration, this.maxDuration);
		}

		void validate(String property, List<Problem> problems) {
			build(OverloadSettings.class, under(property), this::toSettings, problems);
		}

	}

	/**
	 * The spend trigger: per failure domain, the spend per call of each window (money at
	 * the target's price, or tokens) against the median of past windows; an alert at
	 * {@code alert-multiple}, the breaker opened at {@code open-multiple}.
	 */
	public static class Spend {

		/** Whether a failure domain's runaway spend per call opens its breaker. */
		private boolean enabled;

		/** The length of one window; windows start on the epoch, so pods agree. */
		private Duration window = SpendSettings.DEFAULT_WINDOW;

		/** How many past windows the median spend per call is taken over. */
		private int history = SpendSettings.DEFAULT_HISTORY;

		/** How many past windows a failure domain needs before it is judged. */
		private int minWindows = SpendSettings.DEFAULT_MIN_WINDOWS;

		/** How many answers with usage a window needs to be judged and remembered. */
		private int minCalls = SpendSettings.DEFAULT_MIN_CALLS;

		/** Spend per call, as a multiple of the median, that opens the breaker. */
		private double openMultiple = SpendSettings.DEFAULT_OPEN_MULTIPLE;

		/** Spend per call, as a multiple of the median, that publishes an alert. */
		private double alertMultiple = SpendSettings.DEFAULT_ALERT_MULTIPLE;

		/**
		 * How many whole windows a tripped level must hold, steady, before it becomes the
		 * failure domain's new normal and its breaker's trials pass again; 0 never adopts
		 * (only an operator's close or reset does).
		 */
		private int adoptAfter = SpendSettings.DEFAULT_ADOPT_AFTER;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getWindow() {
			return this.window;
		}

		public void setWindow(Duration window) {
			this.window = window;
		}

		public int getHistory() {
			return this.history;
		}

		public void setHistory(int history) {
			this.history = history;
		}

		public int getMinWindows() {
			return this.minWindows;
		}

		public void setMinWindows(int minWindows) {
			this.minWindows = minWindows;
		}

		public int getMinCalls() {
			return this.minCalls;
		}

		public void setMinCalls(int minCalls) {
			this.minCalls = minCalls;
		}

		public double getOpenMultiple() {
			return this.openMultiple;
		}

		public void setOpenMultiple(double openMultiple) {
			this.openMultiple = openMultiple;
		}

		public double getAlertMultiple() {
			return this.alertMultiple;
		}

		public void setAlertMultiple(double alertMultiple) {
			this.alertMultiple = alertMultiple;
		}

		public int getAdoptAfter() {
			return this.adoptAfter;
		}

		public void setAdoptAfter(int adoptAfter) {
			this.adoptAfter = adoptAfter;
		}

		SpendSettings toSettings() {
			return new SpendSettings(this.enabled, this.window, this.history, this.minWindows, this.minCalls,
					this.openMultiple, this.alertMultiple, this.adoptAfter);
		}

		void validate(String property, List<Problem> problems) {
			build(SpendSettings.class, under(property), this::toSettings, problems);
		}

	}

	/**
	 * What a target's tokens cost, per million, in the application's currency; without
	 * one, its spend is counted in tokens.
	 */
	public static class PriceProperties {

		/** Price of a million input (prompt) tokens; unset is 0 when output is set. */
		private @Nullable Double input;

		/**
		 * Price of a million output (completion) tokens; unset is 0 when input is set.
		 */
		private @Nullable Double output;

		public @Nullable Double getInput() {
			return this.input;
		}

		public void setInput(@Nullable Double input) {
			this.input = input;
		}

		public @Nullable Double getOutput() {
			return this.output;
		}

		public void setOutput(@Nullable Double output) {
			this.output = output;
		}

		/** The price, or {@code null} when neither part is set. */
		@Nullable Price toPrice() {
			if (this.input == null && this.output == null) {
				return null;
			}
			return new Price(orDefault(this.input, 0d), orDefault(this.output, 0d));
		}

		void validate(String property, List<Problem> problems) {
			if (this.input != null || this.output != null) {
				build(Price.class, under(property),
						() -> new Price(orDefault(this.input, 0d), orDefault(this.output, 0d)), problems);
			}
		}

	}

	/** Timeouts that follow each target's measured latency. */
	public static class Adaptive {

		/**
		 * Whether attempt and first-token timeouts follow measured latency once enough
		 * calls are recorded.
		 */
		private boolean enabled = true;

		/**
		 * Calls of a target (successes, and timeouts counted at the length they ran)
		 * needed before its measured latency sets its timeouts.
		 */
		private int minSamples = 200;

		/**
		 * How far above the measured p99 a timeout sits: timeout = clamp(multiplier x
		 * p99, floor, configured).
		 */
		private double multiplier = 3.0;

		/**
		 * Shortest timeout measurement may set; the configured timeout is always the
		 * longest.
		 */
		private Duration floor = Duration.ofSeconds(1);

		/**
		 * Shortest timeout measurement may set, as a fraction of the configured timeout
		 * (0-1); the higher of this and floor holds.
		 */
		private double floorRatio = 0.2;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public int getMinSamples() {
			return this.minSamples;
		}

		public void setMinSamples(int minSamples) {
			this.minSamples = minSamples;
		}

		public double getMultiplier() {
			return this.multiplier;
		}

		public void setMultiplier(double multiplier) {
			this.multiplier = multiplier;
		}

		public Duration getFloor() {
			return this.floor;
		}

		public void setFloor(Duration floor) {
			this.floor = floor;
		}

		public double getFloorRatio() {
			return this.floorRatio;
		}

		public void setFloorRatio(double floorRatio) {
			this.floorRatio = floorRatio;
		}

		void validate(String property, List<Problem> problems) {
			build(AdaptiveSettings.class, under(property), () -> new AdaptiveSettings(this.enabled, this.minSamples,
					this.multiplier, this.floor, this.floorRatio), problems);
		}

	}

	/** Per-target time limits; unset values take the llm.resilience.timeouts defaults. */
	public static class TimeoutOverrides {

		/** Longest time one non-streaming attempt of this target may take. */
		private @Nullable Duration attempt;

		/**
		 * Longest time a streaming attempt of this target may take to its first element.
		 */
		private @Nullable Duration firstToken;

		/** Longest gap between two elements of this target's streams. */
		private @Nullable Duration stall;

		public @Nullable Duration getAttempt() {
			return this.attempt;
		}

		public void setAttempt(@Nullable Duration attempt) {
			this.attempt = attempt;
		}

		public @Nullable Duration getFirstToken() {
			return this.firstToken;
		}

		public void setFirstToken(@Nullable Duration firstToken) {
			this.firstToken = firstToken;
		}

		public @Nullable Duration getStall() {
			return this.stall;
		}

		public void setStall(@Nullable Duration stall) {
			this.stall = stall;
		}

		/** Check the time limits this target gets: its overrides over the defaults. */
		void validate(String property, Timeouts defaults, List<Problem> problems) {
			Set<String> overridden = new LinkedHashSet<>();
			addIfSet(overridden, "attempt", this.attempt);
			addIfSet(overridden, "firstToken", this.firstToken);
			addIfSet(overridden, "stall", this.stall);
			if (overridden.isEmpty()) {
				return;
			}
			build(TimeoutSettings.class, overriding(property, overridden, PREFIX + ".timeouts"),
					() -> new TimeoutSettings(orDefault(this.attempt, defaults.getAttempt()),
							orDefault(this.firstToken, defaults.getFirstToken()),
							orDefault(this.stall, defaults.getStall()), AdaptiveSettings.defaults(),
							defaults.getCall()),
					problems);
		}

	}

	/**
	 * Quota pools (traffic classes): each call names one ({@code CallOptions.pool(...)},
	 * {@code interactive} by default), which says how long it may wait for a rate limit
	 * to clear and, when enabled, which share of each quota scope's capacity it draws
	 * from.
	 */
	public static class Pools {

		/**
		 * Whether each quota scope's capacity is partitioned by the pools' shares; off,
		 * the pools still set how long a call waits for a rate limit to clear.
		 */
		private boolean enabled;

		/**
		 * Whether a scope's capacity is learned from the rate-limit headers of successful
		 * answers (x-ratelimit-limit-requests, anthropic-ratelimit-requests-limit and the
		 * token variants); a configured capacity wins.
		 */
		private boolean learnCapacity = true;

		/**
		 * The pools by name: share of each scope (percent), longest wait, queue bound.
		 * Defaults: interactive 70 % and 2 s, background 20 % and 120 s, evaluation 10 %
		 * and 600 s; an added pool needs its share.
		 */
		private Map<String, PoolProperties> classes = new LinkedHashMap<>();

		/**
		 * Capacity of quota scopes by scope key, account/model (in a properties key:
		 * "[account/model]"); a scope not listed learns it from the provider's headers.
		 */
		private Map<String, CapacityProperties> capacity = new LinkedHashMap<>();

		/**
		 * The least a capacity learned from a provider's headers may state; a header
		 * stating less is not believed. A configured capacity is taken as it is.
		 */
		private final LearnedCapacityFloorProperties learnedCapacityFloor = new LearnedCapacityFloorProperties();

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public boolean isLearnCapacity() {
			return this.learnCapacity;
		}

		public void setLearnCapacity(boolean learnCapacity) {
			this.learnCapacity = learnCapacity;
		}

		public Map<String, PoolProperties> getClasses() {
			return this.classes;
		}

		public void setClasses(Map<String, PoolProperties> classes) {
			this.classes = classes;
		}

		public Map<String, CapacityProperties> getCapacity() {
			return this.capacity;
		}

		public void setCapacity(Map<String, CapacityProperties> capacity) {
			this.capacity = capacity;
		}

		public LearnedCapacityFloorProperties getLearnedCapacityFloor() {
			return this.learnedCapacityFloor;
		}

		/** The default pools, each overridden where configured, then the added ones. */
		List<PoolSettings> poolSettings() {
			List<PoolSettings> pools = new ArrayList<>();
			Set<String> done = new HashSet<>();
			for (PoolSettings defaults : PartitionSettings.defaultPools()) {
				PoolProperties configured = this.classes.get(defaults.name());
				pools.add((configured != null) ? configured.settings(defaults.name(), defaults) : defaults);
				done.add(defaults.name());
			}
			this.classes.forEach((name, configured) -> {
				if (!done.contains(name)) {
					pools.add(configured.settings(name, null));
				}
			});
			return pools;
		}

		/** The settings the engine gets. */
		PartitionSettings settings() {
			Map<String, Capacity> capacities = new LinkedHashMap<>();
			this.capacity.forEach((scope, configured) -> capacities.put(scope, configured.capacity()));
			return new PartitionSettings(this.enabled, poolSettings(), capacities, this.learnCapacity,
					this.learnedCapacityFloor.capacity());
		}

		void validate(String property, Map<String, TargetProperties> targets, List<Problem> problems) {
			int before = problems.size();
			this.classes.forEach((name, configured) -> build(PoolSettings.class, under(property + ".classes." + name),
					() -> configured.settings(name, null), problems));
			this.capacity.forEach((scope, configured) -> build(Capacity.class,
					under(property + ".capacity.[" + scope + "]"), configured::capacity, problems));
			build(Capacity.class, under(property + ".learned-capacity-floor"), this.learnedCapacityFloor::capacity,
					problems);
			if (problems.size() > before) {
				return;
			}
			build(PartitionSettings.class, (component) -> switch (component) {
				case "pools" -> property + ".classes";
				case "capacities" -> property + ".capacity";
				case "learn" -> property + ".learn-capacity";
				default -> property + "." + kebabCase(component);
			}, this::settings, problems);
			Set<String> scopes = new TreeSet<>();
			targets.forEach((name, target) -> scopes
				.add(((target.getAccount() != null && !target.getAccount().isBlank()) ? target.getAccount() : name)
						+ "/" + target.getModel()));
			this.capacity.keySet()
				.stream()
				.filter((scope) -> !scopes.contains(scope))
				.forEach((scope) -> problems.add(new Problem(property + ".capacity.[" + scope + "]", quote(scope),
						"must name the quota scope (account/model) of a configured target; known scopes: " + scopes)));
		}

	}

	/** One pool. */
	public static class PoolProperties {

		/**
		 * Share of each quota scope's capacity, in percent (1 to 100; all pools together
		 * at most 100).
		 */
		private @Nullable Integer share;

		/**
		 * Longest a call of this pool waits for its share to refill or a rate limit to
		 * clear, rather than fail; 0 never waits.
		 */
		private @Nullable Duration maxWait;

		/** Most calls of this pool waiting at once; one more fails at once. */
		private @Nullable Integer maxQueued;

		public @Nullable Integer getShare() {
			return this.share;
		}

		public void setShare(@Nullable Integer share) {
			this.share = share;
		}

		public @Nullable Duration getMaxWait() {
			return this.maxWait;
		}

		public void setMaxWait(@Nullable Duration maxWait) {
			this.maxWait = maxWait;
		}

		public @Nullable Integer getMaxQueued() {
			return this.maxQueued;
		}

		public void setMaxQueued(@Nullable Integer maxQueued) {
			this.maxQueued = maxQueued;
		}

		/**
		 * The pool: what is set here over the defaults of a built-in pool; an added pool
		 * ({@code defaults} null) must set its share, and waits like interactive.
		 */
		PoolSettings settings(String name, @Nullable PoolSettings defaults) {
			PoolSettings base = (defaults != null) ? defaults : defaultsOf(name);
			if (base == null && this.share == null) {
				throw new IllegalArgumentException(
						"share must be set for a pool of your own (1 to 100 percent)" + VALUE_MARK + "unset");
			}
			PoolSettings interactive = PoolSettings.interactive();
			return new PoolSettings(name, orDefault(this.share, (base != null) ? base.share() : 0),
					orDefault(this.maxWait, (base != null) ? base.maxWait() : interactive.maxWait()),
					orDefault(this.maxQueued, (base != null) ? base.maxQueued() : PoolSettings.DEFAULT_MAX_QUEUED));
		}

		private static @Nullable PoolSettings defaultsOf(String name) {
			for (PoolSettings pool : PartitionSettings.defaultPools()) {
				if (pool.name().equals(name)) {
					return pool;
				}
			}
			return null;
		}

	}

	/** The least a learned capacity may state. */
	public static class LearnedCapacityFloorProperties {

		/**
		 * Fewest requests a minute a learned capacity may state; fewer is not believed (1
		 * or 2 a minute would starve the service). 0 believes any.
		 */
		private long requestsPerMinute = PartitionSettings.DEFAULT_LEARNED_REQUESTS_FLOOR;

		/**
		 * Fewest tokens a minute a learned capacity may state; fewer is not believed. 0
		 * believes any.
		 */
		private long tokensPerMinute = PartitionSettings.DEFAULT_LEARNED_TOKENS_FLOOR;

		public long getRequestsPerMinute() {
			return this.requestsPerMinute;
		}

		public void setRequestsPerMinute(long requestsPerMinute) {
			this.requestsPerMinute = requestsPerMinute;
		}

		public long getTokensPerMinute() {
			return this.tokensPerMinute;
		}

		public void setTokensPerMinute(long tokensPerMinute) {
			this.tokensPerMinute = tokensPerMinute;
		}

		Capacity capacity() {
			return new Capacity(this.requestsPerMinute, this.tokensPerMinute);
		}

	}

	/** What a quota scope may serve per minute. */
	public static class CapacityProperties {

		/** Requests a minute; 0 learns it from the provider's headers. */
		private long requestsPerMinute;

		/**
		 * Tokens (input and output) a minute; 0 learns it from the provider's headers.
		 */
		private long tokensPerMinute;

		public long getRequestsPerMinute() {
			return this.requestsPerMinute;
		}

		public void setRequestsPerMinute(long requestsPerMinute) {
			this.requestsPerMinute = requestsPerMinute;
		}

		public long getTokensPerMinute() {
			return this.tokensPerMinute;
		}

		public void setTokensPerMinute(long tokensPerMinute) {
			this.tokensPerMinute = tokensPerMinute;
		}

		Capacity capacity() {
			return new Capacity(this.requestsPerMinute, this.tokensPerMinute);
		}

	}

}
