package io.github.llmresilience.execute;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import io.github.llmresilience.breaker.Breaker;
import io.github.llmresilience.breaker.BreakerSettings;
import io.github.llmresilience.breaker.Breakers;
import io.github.llmresilience.canary.CanaryProbe;
import io.github.llmresilience.canary.CanarySettings;
import io.github.llmresilience.canary.CanaryTarget;
import io.github.llmresilience.canary.CanaryTrial;
import io.github.llmresilience.canary.PromptProbe;
import io.github.llmresilience.change.StateChanges;
import io.github.llmresilience.classify.Outcome;
import io.github.llmresilience.classify.ProviderClassifiers;
import io.github.llmresilience.classify.ProviderErrorClassifier;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.RuleClassifier;
import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.fleet.Fleet;
import io.github.llmresilience.fleet.FleetStore.Write;
import io.github.llmresilience.overload.OverloadControl;
import io.github.llmresilience.retry.RetryBudget;
import io.github.llmresilience.spend.DomainSpend;
import io.github.llmresilience.spend.Spend;
import io.github.llmresilience.state.ChainState;
import io.github.llmresilience.state.Operator;
import io.github.llmresilience.state.ProviderState;
import io.github.llmresilience.state.ResilienceState;
import io.github.llmresilience.state.TargetState;
import io.github.llmresilience.target.Target;
import io.github.llmresilience.target.TargetRegistry;
import io.github.llmresilience.throttle.Accounts;
import io.github.llmresilience.throttle.Accounts.AccountStatus;
import io.github.llmresilience.throttle.ThrottleGate;
import io.github.llmresilience.timeout.MeasuredTimeout;
import org.jspecify.annotations.Nullable;

/**
 * Every target's guard, built once from the builder's settings, and the chains resolved
 * to them (again after an operator edits one). Takes the state snapshot and carries out
 * the operator's commands; calls only read it.
 */
final class TargetRuntimes implements Operator {

	private final Clock clock;

	private final TargetRegistry registry;

	private final Breakers breakers;

	private final ThrottleGate gate;

	private final Accounts accounts;

	private final CallContext context;

	private final Map<String, TargetRuntime> byName;

	private final Map<String, TargetRuntime[]> singles;

	private volatile Map<String, TargetRuntime[]> chains;

	private final Fleet fleet;

	/** The built-in canary sender, made for the first canary that needs it. */
	private @Nullable PromptProbe promptProbe;

	private final Spend spend;

	private final OverloadControl overload;

	TargetRuntimes(LlmResilienceBuilder builder, TargetRegistry registry, CallContext context,
			ProviderClassifiers classifiers, Breakers breakers, ThrottleGate gate, Accounts accounts, Fleet fleet,
			Spend spend, OverloadControl overload, StateChanges events) {
		this.clock = builder.clock;
		this.spend = spend;
		this.overload = overload;
		this.fleet = fleet;
		this.registry = registry;
		this.breakers = breakers;
		this.gate = gate;
		this.accounts = accounts;
		this.context = context;
		Map<String, TargetRuntime> byName = new LinkedHashMap<>();
		Map<String, TargetRuntime[]> singles = new LinkedHashMap<>();
		// Each failure domain's canary, sent from its targets that have one, in order.
		Map<Breaker, List<CanaryTrial.Sender>> canaries = new LinkedHashMap<>();
		for (Target target : registry.targets().values()) {
			TargetRuntime runtime = runtime(builder, target, context, classifiers, overload);
			byName.put(target.name(), runtime);
			singles.put(target.name(), new TargetRuntime[] { runtime });
			CanarySettings canary = canary(builder, target);
			if (canary != null) {
				canaries.computeIfAbsent(runtime.breaker(), (breaker) -> new ArrayList<>())
					.add(new CanaryTrial.Sender(new DomainCanaryTarget(runtime), canary,
							canaryProbe(builder, target, canary)));
			}
		}
		canaries.forEach((breaker, senders) -> breaker.useProbe(new CanaryTrial(senders, builder.canaryJudge,
				builder.scheduler, builder.clock, context.nanoTime(), events)));
		for (String name : builder.targetCanaries.keySet()) {
			if (!byName.containsKey(name)) {
				throw new IllegalArgumentException(
						"A canary names no target: '" + name + "'; known targets: " + byName.keySet());
			}
		}
		for (String priced : builder.prices.keySet()) {
			if (!byName.containsKey(priced)) {
				throw new IllegalArgumentException(
						"A price names no target: '" + priced + "'; known targets: " + byName.keySet());
			}
		}
		this.byName = Collections.unmodifiableMap(byName);
		this.singles = Collections.unmodifiableMap(singles);
		this.chains = resolveChains();
		registry.onChainEdited((name) -> this.chains = resolveChains());
	}

	private TargetRuntime runtime(LlmResilienceBuilder builder, Target target, CallContext context,
			ProviderClassifiers classifiers, OverloadControl overload) {
		TargetOptions options = builder.targetOptions.getOrDefault(target.name(), TargetOptions.DEFAULTS);
		ProviderErrorClassifier classifier;
		try {
			// The user's rules first, then the provider's table: the rules are read on
			// every
			// answer, so an edit applies from the next one.
			classifier = new GuardedClassifier(new RuleClassifier(builder.rules, target.provider(),
					classifiers.forProvider(target.provider()), builder.clock, context.unclassified()),
					context.unclassified());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("Target '" + target.name() + "': " + ex.getMessage(), ex);
		}
		BreakerSettings breakerSettings = (options.breaker() != null) ? options.breaker() : builder.breaker;
		Breaker breaker = this.breakers.forDomain(failureDomain(target, builder.failureDomain), breakerSettings,
				(error) -> classifyError(context, classifier, error));
		DomainSpend spend;
		try {
			spend = this.spend.forDomain(breaker, builder.prices.get(target.name()));
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("Target '" + target.name() + "': " + ex.getMessage(), ex);
		}
		TimeoutSettings timeouts = builder.timeouts;
		return new TargetRuntime(target, classifier, breaker, spend, this.gate, this.accounts, this.fleet,
				RetryBudget.of(context.nanoTime(), builder.retry),
				new MeasuredTimeout(orDefault(options.attemptTimeout(), timeouts.attempt()), timeouts.adaptive()),
				new MeasuredTimeout(orDefault(options.firstTokenTimeout(), timeouts.firstToken()), timeouts.adaptive()),
				orDefault(options.stallTimeout(), timeouts.stall()), builder.clock, builder.retry.backoffBase(),
				context.pools(), context.overloads(),
				overload.admission(breaker.domain(), OverloadControl.account(target)));
	}

	/**
	 * The target's canary: its own, else the default, else the defaults when a probe
	 * sends canaries; {@code null} when calls are the trials.
	 */
	private static @Nullable CanarySettings canary(LlmResilienceBuilder builder, Target target) {
		if (builder.targetCanaries.containsKey(target.name())) {
			return builder.targetCanaries.get(target.name());
		}
		if (builder.canary != null) {
			return builder.canary;
		}
		return (builder.canaryProbe != null) ? CanarySettings.probed() : null;
	}

	/** What sends the target's canary: the application's probe, else the built-in one. */
	private CanaryProbe canaryProbe(LlmResilienceBuilder builder, Target target, CanarySettings canary) {
		CanaryProbe probe = builder.canaryProbe;
		if (probe == null) {
			if (canary.prompt() == null) {
				throw new IllegalArgumentException(
						"Target '" + target.name() + "': a canary needs a prompt, or a CanaryProbe to send it");
			}
			String unsupported = PromptProbe.unsupported(target);
			if (unsupported != null) {
				throw new IllegalArgumentException("Target '" + target.name() + "': " + unsupported);
			}
			if (this.promptProbe == null) {
				this.promptProbe = new PromptProbe();
			}
			probe = this.promptProbe;
		}
		return probe;
	}

	/**
	 * A target as its failure domain's canary sees it: the answer is read by the target's
	 * own classifier, and its verdict held by the target's own guard, as a call's.
	 */
	private final class DomainCanaryTarget implements CanaryTarget {

		private final TargetRuntime runtime;

		private final AccountStatus account;

		private final ThrottleGate.Scope scope;

		DomainCanaryTarget(TargetRuntime runtime) {
			this.runtime = runtime;
			this.account = TargetRuntimes.this.accounts.account(runtime.target().account());
			this.scope = TargetRuntimes.this.gate.scope(runtime.target().quotaScope());
		}

		@Override
		public Target target() {
			return this.runtime.target();
		}

		@Override
		public Instant heldUntil() {
			Instant account = this.account.availableAt();
			Instant scope = this.scope.gatedUntil();
			return scope.isAfter(account) ? scope : account;
		}

		@Override
		public @Nullable ProviderResponse answer(Throwable error) {
			return TargetRuntimes.this.context.extractors().extract(error);
		}

		@Override
		public Verdict classify(ProviderResponse answer) {
			return this.runtime.classifier().classify(answer);
		}

		@Override
		public void hold(Verdict verdict) {
			this.runtime.hold(verdict);
		}

		@Override
		public void answered() {
			TargetRuntimes.this.accounts.success(this.account);
		}

	}

	/**
	 * For an exception that reaches a breaker unclassified (a caller recording on the
	 * Resilience4j breaker itself): as the engine would read it.
	 */
	private static Verdict classifyError(CallContext context, ProviderErrorClassifier classifier, Throwable error) {
		ProviderResponse response = context.extractors().extract(error);
		if (response != null) {
			return classifier.classify(response);
		}
		return (context.unknownExceptions() == UnknownExceptions.PROVIDER) ? Verdict.of(Outcome.AVAILABILITY)
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

	private static Duration orDefault(@Nullable Duration value, Duration fallback) {
		return (value != null) ? value : fallback;
	}

	// Resolve

	TargetRuntime get(String target) {
		TargetRuntime runtime = this.byName.get(target);
		if (runtime == null) {
			throw new IllegalArgumentException(
					"No target named '" + target + "'; known targets: " + this.byName.keySet());
		}
		return runtime;
	}

	TargetRuntime[] chain(String chain) {
		TargetRuntime[] targets = this.chains.get(chain);
		if (targets == null) {
			throw new IllegalArgumentException("No chain named '" + chain + "'; known chains: " + this.chains.keySet());
		}
		return targets;
	}

	TargetRuntime[] single(String target) {
		TargetRuntime[] targets = this.singles.get(target);
		if (targets == null) {
			throw new IllegalArgumentException(
					"No target named '" + target + "'; known targets: " + this.singles.keySet());
		}
		return targets;
	}

	private Map<String, TargetRuntime[]> resolveChains() {
		Map<String, TargetRuntime[]> resolved = new LinkedHashMap<>();
		this.registry.chains()
			.forEach((name, members) -> resolved.put(name,
					members.stream().map(this.byName::get).toArray(TargetRuntime[]::new)));
		return Collections.unmodifiableMap(resolved);
	}

	/** The earliest moment a target of the chain may serve, or now when one can. */
	Instant availableAt(String chain) {
		return availableAt(chain(chain), this.clock.instant());
	}

	private static Instant availableAt(TargetRuntime[] targets, Instant now) {
		Instant earliest = null;
		for (TargetRuntime target : targets) {
			Instant at = target.availableAt(now, null);
			if (earliest == null || at.isBefore(earliest)) {
				earliest = at;
			}
		}
		return (earliest != null) ? earliest : now;
	}

	// State

	ResilienceState state() {
		Instant now = this.clock.instant();
		Map<String, TargetState> targets = new LinkedHashMap<>();
		Map<String, TargetState.BreakerState> breakers = new TreeMap<>();
		Map<String, TargetState.ScopeState> scopes = new TreeMap<>();
		Map<String, TargetState.AccountState> accounts = new TreeMap<>();
		this.byName.forEach((name, runtime) -> {
			TargetState state = runtime.state(now);
			targets.put(name, state);
			breakers.put(state.breaker().domain(), state.breaker());
			scopes.put(state.scope().key(), state.scope());
			accounts.put(state.account().name(), state.account());
		});
		Map<String, ChainState> chains = new LinkedHashMap<>();
		Map<String, TargetRuntime[]> resolved = this.chains;
		this.registry.chains().forEach((name, members) -> {
			TargetRuntime[] runtimes = resolved.get(name);
			boolean usable = false;
			for (String member : members) {
				usable |= targets.get(member).usable();
			}
			chains.put(name,
					new ChainState(name, members, this.registry.configuredChains().getOrDefault(name, List.of()),
							usable, usable ? null : availableAt(runtimes, now)));
		});
		Map<String, ProviderState> providers = new TreeMap<>();
		this.byName.values().forEach((runtime) -> {
			String provider = runtime.target().provider();
			Instant until = this.context.overloads().overloadedUntil(provider, now);
			providers.put(provider,
					new ProviderState(provider, until != null, until, this.context.overloads().reason(provider, now)));
		});
		return new ResilienceState(now, Collections.unmodifiableMap(targets), Collections.unmodifiableMap(chains),
				Collections.unmodifiableMap(breakers), Collections.unmodifiableMap(scopes),
				Collections.unmodifiableMap(accounts), Collections.unmodifiableMap(providers), this.fleet.state());
	}

	// Operate

	// In fleet mode each command also goes to every other pod; the fleet's own thread
	// sends it.

	@Override
	public void forceOpen(String target) {
		Breaker breaker = get(target).breaker();
		breaker.forceOpen();
		this.fleet.command(Write.Kind.BREAKER, breaker.domain(), "forced-open");
	}

	@Override
	public void close(String target) {
		Breaker breaker = get(target).breaker();
		breaker.close();
		acceptSpend(breaker);
		this.fleet.command(Write.Kind.BREAKER, breaker.domain(), "closed");
	}

	@Override
	public void reset(String target) {
		TargetRuntime runtime = get(target);
		Breaker breaker = runtime.breaker();
		breaker.reset();
		acceptSpend(breaker);
		// Starting the domain over starts its overload history over too: its limit, and
		// its account's requests and accepts.
		this.overload.forget(breaker.domain(), OverloadControl.account(runtime.target()));
		this.fleet.command(Write.Kind.BREAKER, breaker.domain(), "closed");
	}

	/**
	 * An operator who closes a domain's breaker accepts its spend as it is: its history
	 * is forgotten and learnt again, else a runaway's level would open it at once.
	 */
	private void acceptSpend(Breaker breaker) {
		DomainSpend spend = this.spend.get(breaker.domain());
		if (spend != null) {
			spend.forget();
		}
	}

	@Override
	public void disable(String target) {
		Breaker breaker = get(target).breaker();
		breaker.disable();
		this.fleet.command(Write.Kind.BREAKER, breaker.domain(), "disabled");
	}

	@Override
	public void unpark(String account) {
		this.accounts.unpark(knownAccount(account));
		this.fleet.command(Write.Kind.UNPARK, account, "");
	}

	@Override
	public void unlock(String account) {
		this.accounts.unlock(knownAccount(account));
		this.fleet.command(Write.Kind.UNLOCK, account, "");
	}

	@Override
	public void release(String scope) {
		Set<String> known = new TreeSet<>();
		this.byName.values().forEach((runtime) -> known.add(runtime.target().quotaScope()));
		if (!known.contains(scope)) {
			throw new IllegalArgumentException("No quota scope named '" + scope + "'; known scopes: " + known);
		}
		this.gate.release(scope);
		this.fleet.command(Write.Kind.RELEASE, scope, "");
	}

	@Override
	public void replaceChain(String chain, List<String> targets) {
		this.registry.replaceChain(chain, targets);
		this.fleet.command(Write.Kind.CHAIN, chain, String.join(",", this.registry.chains().get(chain)));
	}

	private String knownAccount(String account) {
		Set<String> known = new TreeSet<>();
		this.byName.values().forEach((runtime) -> known.add(runtime.target().account()));
		if (!known.contains(account)) {
			throw new IllegalArgumentException("No account named '" + account + "'; known accounts: " + known);
		}
		return account;
	}

}
