package io.github.llmresilience.autoconfigure;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.canary.CanarySettings;
import io.github.llmresilience.execute.TimeoutSettings;
import io.github.llmresilience.execute.UnknownExceptions;
import io.github.llmresilience.hedge.HedgingSettings;
import io.github.llmresilience.overload.ClientThrottlingSettings;
import io.github.llmresilience.overload.ConcurrencySettings;
import io.github.llmresilience.overload.OverloadSettings;
import io.github.llmresilience.pool.LeaseSettings;
import io.github.llmresilience.pool.PartitionSettings;
import io.github.llmresilience.pool.PoolSettings;
import io.github.llmresilience.spend.SpendSettings;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of llm-resilience: the targets a request can be served from, the chains
 * that order them, and the thresholds of each mechanism. Plain data, as Boot's own
 * properties are: {@code PropertiesSettings} maps it to the settings records the engine
 * runs with, once, and those records check their own ranges; a bad value stops the
 * application with a message naming the property.
 */
@ConfigurationProperties("llm.resilience")
public class LlmResilienceProperties {

	static final String PREFIX = "llm.resilience";

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

	private final Concurrency concurrency = new Concurrency();

	private final ClientThrottling clientThrottling = new ClientThrottling();

	private final Pools pools = new Pools();

	private final Spend spend = new Spend();

	private final Hedging hedging = new Hedging();

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

	public Concurrency getConcurrency() {
		return this.concurrency;
	}

	public ClientThrottling getClientThrottling() {
		return this.clientThrottling;
	}

	public Pools getPools() {
		return this.pools;
	}

	public Spend getSpend() {
		return this.spend;
	}

	public Hedging getHedging() {
		return this.hedging;
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

		/**
		 * Name of the LangChain4j ChatModel or StreamingChatModel bean that serves this
		 * target; a chain whose targets name them gets a bean named
		 * {@code <chain>Lc4jChatModel} or {@code <chain>Lc4jStreamingChatModel}.
		 */
		private @Nullable String lc4jChatModel;

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

		public @Nullable String getLc4jChatModel() {
			return this.lc4jChatModel;
		}

		public void setLc4jChatModel(@Nullable String lc4jChatModel) {
			this.lc4jChatModel = lc4jChatModel;
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

		public Duration getQuotaThreshold() {
			return this.quotaThreshold;
		}

		public void setQuotaThreshold(Duration quotaThreshold) {
			this.quotaThreshold = quotaThreshold;
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

	}

	/**
	 * Fleet mode: breakers, gates, parks, locks and operator commands shared by every pod
	 * of a namespace through Redis ({@code spring.data.redis.*}).
	 */
	public static class Fleet {

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

	}

	/**
	 * First-token hedging of streams: when an attempt has had no first element by the
	 * delay, the same request goes to the chain's next usable target in another failure
	 * domain, and the first element to come wins; the other is cancelled. Capped by a
	 * budget.
	 */
	public static class Hedging {

		/** Whether a stream whose first element is late is hedged. */
		private boolean enabled;

		/**
		 * Whether reactive calls (execute) whose answer is late are hedged too; blocking
		 * calls never are.
		 */
		private boolean calls;

		/**
		 * How long an attempt waits for its first element before the hedge; unset for its
		 * target's measured 95th percentile time to first token (half the first-token
		 * timeout until 20 are measured).
		 */
		private @Nullable Duration delay;

		/**
		 * Hedges allowed as a share of the chain's streams over the window, above 0, at
		 * most 1.
		 */
		private double budget = HedgingSettings.DEFAULT_BUDGET;

		/** How long streams and hedges count for the budget. */
		private Duration window = HedgingSettings.DEFAULT_WINDOW;

		/** Hedges always allowed per window, whatever the streams (0 to 1,000,000). */
		private int minimum = HedgingSettings.DEFAULT_MINIMUM;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public boolean isCalls() {
			return this.calls;
		}

		public void setCalls(boolean calls) {
			this.calls = calls;
		}

		public @Nullable Duration getDelay() {
			return this.delay;
		}

		public void setDelay(@Nullable Duration delay) {
			this.delay = delay;
		}

		public double getBudget() {
			return this.budget;
		}

		public void setBudget(double budget) {
			this.budget = budget;
		}

		public Duration getWindow() {
			return this.window;
		}

		public void setWindow(Duration window) {
			this.window = window;
		}

		public int getMinimum() {
			return this.minimum;
		}

		public void setMinimum(int minimum) {
			this.minimum = minimum;
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

	}

	/**
	 * The adaptive limit on calls in flight to each failure domain, per pod: it grows
	 * while answers come back on time and shrinks on overload and availability failures
	 * and slow answers; a call over its target's limit tries the next target.
	 */
	public static class Concurrency {

		/** Whether calls in flight to each failure domain are limited. */
		private boolean enabled;

		/** How the limit learns: aimd, vegas or gradient2. */
		private ConcurrencySettings.Algorithm algorithm = ConcurrencySettings.Algorithm.AIMD;

		/**
		 * Limit before any answer, between min-limit and max-limit; max-limit when unset.
		 */
		private @Nullable Integer initialLimit;

		/** Lowest limit, 1 to 10000. */
		private int minLimit = ConcurrencySettings.DEFAULT_MIN_LIMIT;

		/** Highest limit, min-limit to 10000. */
		private int maxLimit = ConcurrencySettings.DEFAULT_MAX_LIMIT;

		/** What aimd multiplies the limit by on a drop, 0.5 to 0.99. */
		private double backoffRatio = ConcurrencySettings.DEFAULT_BACKOFF_RATIO;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public ConcurrencySettings.Algorithm getAlgorithm() {
			return this.algorithm;
		}

		public void setAlgorithm(ConcurrencySettings.Algorithm algorithm) {
			this.algorithm = algorithm;
		}

		public @Nullable Integer getInitialLimit() {
			return this.initialLimit;
		}

		public void setInitialLimit(@Nullable Integer initialLimit) {
			this.initialLimit = initialLimit;
		}

		public int getMinLimit() {
			return this.minLimit;
		}

		public void setMinLimit(int minLimit) {
			this.minLimit = minLimit;
		}

		public int getMaxLimit() {
			return this.maxLimit;
		}

		public void setMaxLimit(int maxLimit) {
			this.maxLimit = maxLimit;
		}

		public double getBackoffRatio() {
			return this.backoffRatio;
		}

		public void setBackoffRatio(double backoffRatio) {
			this.backoffRatio = backoffRatio;
		}

	}

	/**
	 * Client-side adaptive throttling (the SRE book's): per provider account, a request
	 * is refused here with the probability max(0, (requests - K * accepts) / (requests +
	 * 1)) over the window, where only overload and availability failures are not accepts;
	 * each pool has its own K, and the smaller K is shed first.
	 */
	public static class ClientThrottling {

		/**
		 * Whether requests to a provider that refuses more than it accepts are refused
		 * here.
		 */
		private boolean enabled = true;

		/** How long requests and accepts count, 1s to 1h. */
		private Duration window = ClientThrottlingSettings.DEFAULT_WINDOW;

		/** Requests in the window below which nothing is refused, 1 to 1000000. */
		private int minimumRequests = ClientThrottlingSettings.DEFAULT_MINIMUM_REQUESTS;

		/** K of a pool that has none of its own, 1 to 100. */
		private double multiplier = ClientThrottlingSettings.DEFAULT_MULTIPLIER;

		/** K by pool name, each 1 to 100; interactive is 3 unless set. */
		private Map<String, Double> multipliers = new LinkedHashMap<>(
				Map.of(PoolSettings.INTERACTIVE, ClientThrottlingSettings.DEFAULT_INTERACTIVE_MULTIPLIER));

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

		public int getMinimumRequests() {
			return this.minimumRequests;
		}

		public void setMinimumRequests(int minimumRequests) {
			this.minimumRequests = minimumRequests;
		}

		public double getMultiplier() {
			return this.multiplier;
		}

		public void setMultiplier(double multiplier) {
			this.multiplier = multiplier;
		}

		public Map<String, Double> getMultipliers() {
			return this.multipliers;
		}

		public void setMultipliers(Map<String, Double> multipliers) {
			this.multipliers = multipliers;
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

		/**
		 * In fleet mode, how pods lease slices of each scope's capacity from one shared
		 * bucket in Redis rather than each partitioning an equal part.
		 */
		private final FleetLeasesProperties fleetLeases = new FleetLeasesProperties();

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

		public FleetLeasesProperties getFleetLeases() {
			return this.fleetLeases;
		}

	}

	/** Leases of each quota scope's capacity across a fleet. */
	public static class FleetLeasesProperties {

		/**
		 * Whether, in fleet mode with pools enabled, each pod leases slices of every
		 * scope's capacity sized to its demand from one shared bucket in Redis, rather
		 * than partitioning an equal part of it.
		 */
		private boolean enabled;

		/**
		 * How long a lease lasts: a pod draws on it for at most this long from when it
		 * asked (100ms to 60s).
		 */
		private Duration period = LeaseSettings.DEFAULT_PERIOD;

		/**
		 * How long a pod waits for Redis's answer to one lease exchange before giving it
		 * up (at least 10ms, less than the period).
		 */
		private Duration exchangeTimeout = LeaseSettings.DEFAULT_EXCHANGE_TIMEOUT;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getPeriod() {
			return this.period;
		}

		public void setPeriod(Duration period) {
			this.period = period;
		}

		public Duration getExchangeTimeout() {
			return this.exchangeTimeout;
		}

		public void setExchangeTimeout(Duration exchangeTimeout) {
			this.exchangeTimeout = exchangeTimeout;
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
		 * Longest a call of this pool stands in a quota scope's line for its turn, rather
		 * than fail (a provider's rate limit is waited out up to the call's deadline); 0
		 * never waits.
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

	}

}
