package io.github.llmresilience.actuate;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

import io.github.llmresilience.change.RecentStateChanges;
import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.classify.ClassificationRule;
import io.github.llmresilience.classify.ClassificationRules;
import io.github.llmresilience.classify.PastedAnswer;
import io.github.llmresilience.classify.ProviderErrorClassifier;
import io.github.llmresilience.classify.ProviderResponse;
import io.github.llmresilience.classify.RecentUnclassified;
import io.github.llmresilience.classify.RuleClassifier;
import io.github.llmresilience.classify.UnclassifiedListener;
import io.github.llmresilience.classify.Verdict;
import io.github.llmresilience.classify.vendor.BuiltInClassifiers;
import io.github.llmresilience.execute.LlmResilience;
import io.github.llmresilience.pool.PoolState;
import io.github.llmresilience.state.FleetState;
import io.github.llmresilience.state.Operator;
import io.github.llmresilience.state.ProviderState;
import io.github.llmresilience.state.ResilienceState;
import io.github.llmresilience.state.TargetState;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code llmresilience} endpoint: every target's breaker, gate and account, the
 * chains as configured and as edited, the recent state changes and the recently
 * unclassified provider errors; and the operator's levers, each of which is a state
 * change like any other:
 * <ul>
 * <li>{@code POST targets/{name}} with {@code {"action": "force-open" | "close" |
 * "reset"}} acts on the breaker of the target's failure domain (every target in the
 * domain);</li>
 * <li>{@code POST accounts/{name}} with {@code {"action": "unpark" | "unlock"}} lifts a
 * park or a lock;</li>
 * <li>{@code POST chains/{name}} with {@code {"targets": "secondary,primary"}} replaces a
 * chain's target list: known target names, comma-separated, in order, none twice, at
 * least one;</li>
 * <li>{@code POST classification/rules} edits the user's classification rules:
 * {@code {"action": "add", "status": "429", "type": "tokens", "outcome": "REQUEST"}}
 * appends a rule (an {@code index} inserts it there), {@code "action": "replace"} with an
 * {@code index} puts a rule in its place, {@code "action": "remove"} with an
 * {@code index} removes one. A rule's fields are {@code provider}, {@code status},
 * {@code type}, {@code messageContains}, {@code outcome} and {@code wait}, all strings,
 * as in {@code llm.resilience.classification.rules}. The next answer is read by the new
 * rules.</li>
 * </ul>
 * A request that names an unknown target, account, chain or action changes nothing.
 *
 * <p>
 * "Why this verdict?": {@code GET classification/verdict/{target or provider id}} with
 * the query parameters {@code status}, {@code headers} ({@code Name: value} lines) and
 * {@code body} classifies a pasted answer as that target would (with the user's rules),
 * or as a provider's built-in classifier would, and answers the verdict and what decided
 * it ({@code reason}); without {@code status}, {@code body} is the whole raw answer
 * (status line, headers, blank line, body). An answer that cannot be read gets a 400 with
 * one line saying why.
 *
 * <p>
 * The endpoint is read-only unless the application says otherwise
 * ({@code management.endpoint.llmresilience.access=unrestricted}): exposing it to look at
 * the state ({@code management.endpoints.web.exposure.include=llmresilience}) must not
 * also hand whoever reaches the actuator the levers. While it is read-only, Boot maps no
 * write operation and answers a write as it answers any unmapped request (404).
 *
 * <p>
 * A chain's targets are one comma-separated string, not a JSON array. Boot reads a write
 * operation's body as a JSON object whose members are strings (so that the same operation
 * works over HTTP and JMX): its WebFlux and Spring MVC handler mappings answer a body
 * with an array or an object as a member's value with 400 before the operation runs, in
 * Boot's own error body, which says nothing of {@code targets} (with
 * {@code spring.web.error.include-message=always} its {@code message} is Jackson's reason
 * under Spring MVC, {@code "Failed to read HTTP message"} under WebFlux), and nothing
 * changes. The operation is the same over the application's server and, with
 * {@code management.server.port} set, over the management server.
 */
@Endpoint(id = "llmresilience", defaultAccess = Access.READ_ONLY)
public class LlmResilienceEndpoint {

	private static final List<String> TARGET_ACTIONS = List.of("force-open", "close", "reset");

	private static final List<String> ACCOUNT_ACTIONS = List.of("unpark", "unlock");

	private static final List<String> RULE_ACTIONS = List.of("add", "replace", "remove");

	private final LlmResilience resilience;

	private final @Nullable RecentStateChanges recentChanges;

	private final @Nullable RecentUnclassified recentUnclassified;

	/**
	 * @param resilience the executor to report on and steer
	 * @param recentChanges the recent state changes, or {@code null} when none are kept
	 * @param recentUnclassified the recently unclassified errors, or {@code null} when
	 * none are kept
	 */
	public LlmResilienceEndpoint(LlmResilience resilience, @Nullable RecentStateChanges recentChanges,
			@Nullable RecentUnclassified recentUnclassified) {
		this.resilience = Objects.requireNonNull(resilience, "resilience");
		this.recentChanges = recentChanges;
		this.recentUnclassified = recentUnclassified;
	}

	/**
	 * Everything: targets, chains, recent state changes, recently unclassified errors.
	 */
	@ReadOperation
	public LlmResilienceDescriptor resilience() {
		ResilienceState state = this.resilience.state();
		PoolState pools = this.resilience.pools();
		Map<String, TargetDescriptor> targets = new LinkedHashMap<>();
		state.targets().forEach((name, target) -> targets.put(name, TargetDescriptor.of(target)));
		Map<String, ChainDescriptor> chains = new LinkedHashMap<>();
		state.chains().forEach((name, chain) -> chains.put(name, ChainDescriptor.of(chain)));
		List<StateChangeDescriptor> events = new ArrayList<>();
		if (this.recentChanges != null) {
			this.recentChanges.list().forEach((change) -> events.add(StateChangeDescriptor.of(change)));
		}
		List<RecentUnclassified.Entry> unclassified = (this.recentUnclassified != null) ? this.recentUnclassified.list()
				: List.of();
		return new LlmResilienceDescriptor(targets, chains, events, unclassified, state.providers(),
				ClassificationDescriptor.of(this.resilience.classificationRules()),
				state.fleet().enabled() ? state.fleet() : null, pools.enabled() ? pools : null);
	}

	/** One target; {@code null} (404 over the web) when there is no such target. */
	@ReadOperation
	public @Nullable TargetDescriptor target(@Selector String name) {
		TargetState target = this.resilience.state().targets().get(name);
		return (target != null) ? TargetDescriptor.of(target) : null;
	}

	/**
	 * "Why this verdict?": classify a pasted answer. A path of its own
	 * ({@code classification/verdict/{name}}): a read on the write's
	 * {@code {kind}/{name}} would turn a refused write's 404 into a 405.
	 * @param section {@code classification}
	 * @param operation {@code verdict}
	 * @param name a target (its classifier and the user's rules) or a provider id (its
	 * built-in classifier and the user's rules)
	 * @param status the status, or {@code null} when {@code body} is the whole raw answer
	 * @param headers the headers, one {@code Name: value} a line, or {@code null}
	 * @param body the body, or the whole raw answer
	 * @return the verdict and its reason
	 * @throws InvalidEndpointRequestException (400, one line) for an unknown name or an
	 * answer that cannot be read
	 */
	@ReadOperation
	public VerdictDescriptor verdict(@Selector String section, @Selector String operation, @Selector String name,
			@Nullable String status, @Nullable String headers, @Nullable String body) {
		if (!"classification".equals(section) || !"verdict".equals(operation)) {
			throw invalid("Unknown read '" + section + "/" + operation
					+ "': GET classification/verdict/{target or provider id}");
		}
		ProviderResponse response;
		try {
			response = PastedAnswer.parse(status, headers, body);
		}
		catch (IllegalArgumentException ex) {
			throw invalid(ex.getMessage());
		}
		TargetState target = this.resilience.state().targets().get(name);
		if (target != null) {
			Verdict verdict = this.resilience.classify(name, response);
			return VerdictDescriptor.of(name,
					PastedAnswer.Explanation.of(target.provider(), response.status(), verdict));
		}
		if (BuiltInClassifiers.PROVIDER_IDS.contains(name)) {
			ProviderErrorClassifier classifier = new RuleClassifier(this.resilience.classificationRules(), name,
					BuiltInClassifiers.forProvider(name), Clock.systemUTC(), UnclassifiedListener.NONE);
			return VerdictDescriptor.of(null,
					PastedAnswer.Explanation.of(name, response.status(), classifier.classify(response)));
		}
		throw invalid("Unknown target or provider id '" + name + "'; targets: "
				+ String.join(", ", this.resilience.state().targets().keySet()) + "; provider ids: "
				+ String.join(", ", BuiltInClassifiers.PROVIDER_IDS));
	}

	/**
	 * Change a target's breaker, an account or a chain.
	 * @param kind {@code targets}, {@code accounts} or {@code chains}
	 * @param name the target, account or chain
	 * @param action for a target {@code force-open}, {@code close} or {@code reset}; for
	 * an account {@code unpark} or {@code unlock}
	 * @param targets for a chain, its new ordered target names, comma-separated (a
	 * string, never a JSON array; see the class description)
	 * @param rule for {@code classification/rules}: the index edited and the rule's
	 * fields (see the class description)
	 * @return the state after the change
	 * @throws InvalidEndpointRequestException when the request names something unknown or
	 * is incomplete; nothing has changed then
	 */
	@WriteOperation
	public Object change(@Selector String kind, @Selector String name, @Nullable String action,
			@Nullable String targets, @Nullable String index, @Nullable String provider, @Nullable String status,
			@Nullable String type, @Nullable String messageContains, @Nullable String outcome, @Nullable String wait) {
		return switch (kind) {
			case "targets" -> changeTarget(name, action);
			case "accounts" -> changeAccount(name, action);
			case "chains" -> changeChain(name, targets);
			case "classification" -> changeRules(name, action, index,
					new RuleFields(provider, status, type, messageContains, outcome, wait));
			default -> throw invalid("Unknown kind '" + kind + "': POST to targets/{name}, accounts/{name}, "
					+ "chains/{name} or classification/rules");
		};
	}

	/** The fields of a rule as a write operation receives them: strings. */
	record RuleFields(@Nullable String provider, @Nullable String status, @Nullable String type,
			@Nullable String messageContains, @Nullable String outcome, @Nullable String waitHint) {

		ClassificationRule toRule() {
			return ClassificationRule.parse(this.provider, this.status, this.type, this.messageContains, this.outcome,
					this.waitHint);
		}

	}

	private ClassificationDescriptor changeRules(String name, @Nullable String action, @Nullable String index,
			RuleFields fields) {
		if (!"rules".equals(name)) {
			throw invalid("Unknown classification setting '" + name + "': POST to classification/rules");
		}
		String normalized = action(action, RULE_ACTIONS);
		ClassificationRules rules = this.resilience.classificationRules();
		try {
			switch (normalized) {
				case "add" ->
					rules.add((index != null) ? index(index) : null, fields.toRule(), ClassificationRules.OPERATOR);
				case "replace" ->
					rules.replace(requiredIndex(index, "replace"), fields.toRule(), ClassificationRules.OPERATOR);
				default -> rules.remove(requiredIndex(index, "remove"), ClassificationRules.OPERATOR);
			}
		}
		catch (IllegalArgumentException ex) {
			// The rule or the index is refused; the rules in force have not changed.
			throw invalid(ex.getMessage());
		}
		return ClassificationDescriptor.of(rules);
	}

	private static int requiredIndex(@Nullable String index, String action) {
		if (index == null) {
			throw invalid("Missing \"index\": the index of the rule to " + action + ", from 0");
		}
		return index(index);
	}

	private static int index(String index) {
		try {
			return Integer.parseInt(index.strip());
		}
		catch (NumberFormatException ex) {
			throw invalid("\"index\" must be a rule's index, from 0, was '" + index + "'");
		}
	}

	private TargetDescriptor changeTarget(String name, @Nullable String action) {
		String normalized = action(action, TARGET_ACTIONS);
		Operator operator = this.resilience.operator();
		try {
			switch (normalized) {
				case "force-open" -> operator.forceOpen(name);
				case "close" -> operator.close(name);
				default -> operator.reset(name);
			}
		}
		catch (IllegalArgumentException ex) {
			// The operator names the known targets and has changed nothing.
			throw invalid(ex.getMessage());
		}
		return TargetDescriptor.of(this.resilience.state().target(name));
	}

	private TargetDescriptor.AccountDescriptor changeAccount(String name, @Nullable String action) {
		boolean unpark = action(action, ACCOUNT_ACTIONS).equals("unpark");
		try {
			if (unpark) {
				this.resilience.operator().unpark(name);
			}
			else {
				this.resilience.operator().unlock(name);
			}
		}
		catch (IllegalArgumentException ex) {
			throw invalid(ex.getMessage());
		}
		return TargetDescriptor.AccountDescriptor.of(this.resilience.state().accounts().get(name));
	}

	private ChainDescriptor changeChain(String name, @Nullable String targets) {
		if (targets == null) {
			throw invalid("Missing \"targets\": the chain's new target names in order, comma-separated, "
					+ "such as \"secondary,primary\"");
		}
		List<String> names = new ArrayList<>();
		if (!targets.isBlank()) {
			for (String each : targets.split(",", -1)) {
				if (each.isBlank()) {
					throw invalid("\"targets\" has an empty name: '" + targets + "'");
				}
				names.add(each.strip());
			}
		}
		try {
			this.resilience.operator().replaceChain(name, names);
		}
		catch (IllegalArgumentException ex) {
			throw invalid(ex.getMessage());
		}
		return ChainDescriptor.of(this.resilience.state().chain(name));
	}

	private static String action(@Nullable String action, List<String> allowed) {
		String normalized = (action != null) ? action.strip().toLowerCase(Locale.ROOT) : null;
		if (normalized == null || !allowed.contains(normalized)) {
			throw invalid(((action != null) ? "Unknown action '" + action + "'" : "Missing \"action\"") + "; allowed: "
					+ String.join(", ", allowed));
		}
		return normalized;
	}

	private static InvalidEndpointRequestException invalid(String reason) {
		return new InvalidEndpointRequestException(reason, reason);
	}

	/**
	 * The verdict on a pasted answer, and what decided it.
	 *
	 * @param target the target whose classifier read it, or {@code null} for a provider's
	 * built-in classifier
	 * @param provider the provider id
	 * @param status the status read
	 * @param outcome the outcome
	 * @param reason what decided it: the user's rule, a vendor code, a message family and
	 * the phrase that matched, a detail, or the status default
	 * @param rule {@code built-in}, {@code default} or {@code rules[i]}
	 * @param errorType the provider's error type or code, or {@code null}
	 * @param waitMillis the wait asked for, in milliseconds, or {@code null}
	 * @param providerWide whether it speaks for the provider's whole fleet
	 * @param retry whether the same target may be tried again
	 * @param failover whether the next target may serve the call
	 * @param countsAsFailure whether the breaker counts it
	 */
	public record VerdictDescriptor(@Nullable String target, String provider, int status, String outcome, String reason,
			String rule, @Nullable String errorType, @Nullable Long waitMillis, boolean providerWide, boolean retry,
			boolean failover, boolean countsAsFailure) implements OperationResponseBody {

		static VerdictDescriptor of(@Nullable String target, PastedAnswer.Explanation explanation) {
			return new VerdictDescriptor(target, explanation.provider(), explanation.status(), explanation.outcome(),
					explanation.reason(), explanation.rule(), explanation.errorType(), explanation.waitMillis(),
					explanation.providerWide(), explanation.retry(), explanation.failover(),
					explanation.countsAsFailure());
		}

	}

	/**
	 * Everything the endpoint reports.
	 *
	 * @param targets every target, by name
	 * @param chains every chain, by name
	 * @param events the recent state changes, newest first
	 * @param unclassified the recently defaulted {@code (provider, status, type)} tuples
	 * (and those a user's rule decided), the most recent first, each with the rule that
	 * read it last
	 * @param providers every provider id of a target, and whether it is marked overloaded
	 * @param classification the user's classification rules in force
	 * @param fleet in fleet mode, whether this pod reaches the fleet's store and how the
	 * fleet judges each failure domain; {@code null} otherwise
	 * @param pools with quota pools on, each scope's capacity, what each pool holds of it
	 * and the calls waiting per pool; {@code null} otherwise
	 */
	public record LlmResilienceDescriptor(Map<String, TargetDescriptor> targets, Map<String, ChainDescriptor> chains,
			List<StateChangeDescriptor> events, List<RecentUnclassified.Entry> unclassified,
			Map<String, ProviderState> providers, ClassificationDescriptor classification, @Nullable FleetState fleet,
			@Nullable PoolState pools) implements OperationResponseBody {

	}

	/**
	 * The user's classification rules in force, in the order they are tried, before each
	 * provider's built-in table.
	 *
	 * @param rules every rule
	 */
	public record ClassificationDescriptor(List<RuleDescriptor> rules) implements OperationResponseBody {

		static ClassificationDescriptor of(ClassificationRules rules) {
			List<RuleDescriptor> all = new ArrayList<>();
			List<ClassificationRule> inForce = rules.rules();
			for (int i = 0; i < inForce.size(); i++) {
				all.add(RuleDescriptor.of(i, inForce.get(i)));
			}
			return new ClassificationDescriptor(all);
		}

	}

	/**
	 * One classification rule; a condition that does not apply is left out. (A class, not
	 * a record: a record component cannot be named {@code wait}.)
	 */
	public static final class RuleDescriptor {

		private final int index;

		private final ClassificationRule rule;

		private RuleDescriptor(int index, ClassificationRule rule) {
			this.index = index;
			this.rule = rule;
		}

		/** Its index, from 0. */
		public int getIndex() {
			return this.index;
		}

		/** How verdicts name it: {@code rules[i]}. */
		public String getName() {
			return "rules[" + this.index + "]";
		}

		/** The provider id it applies to, or {@code null} for every provider. */
		public @Nullable String getProvider() {
			return this.rule.provider();
		}

		/** The status or class of statuses, or {@code null} for any. */
		public @Nullable String getStatus() {
			return this.rule.status();
		}

		/** The error type or code, or {@code null} for any. */
		public @Nullable String getType() {
			return this.rule.type();
		}

		/** The text the message contains, or {@code null} for any. */
		public @Nullable String getMessageContains() {
			return this.rule.messageContains();
		}

		/** The outcome it gives. */
		public String getOutcome() {
			return this.rule.outcome().name();
		}

		/** The wait hint it gives an answer that names none, or {@code null}. */
		public @Nullable String getWait() {
			return (this.rule.waitHint() != null) ? this.rule.waitHint().toString() : null;
		}

		static RuleDescriptor of(int index, ClassificationRule rule) {
			return new RuleDescriptor(index, rule);
		}

	}

	/**
	 * One state change.
	 *
	 * @param at when it happened
	 * @param kind what happened, such as {@code breaker-opened} or {@code account-parked}
	 * @param subject a failure domain, a quota scope, an account or a chain
	 * @param detail why
	 * @param until when the subject may serve again, or {@code null}
	 */
	public record StateChangeDescriptor(Instant at, String kind, String subject, String detail,
			@Nullable Instant until) {

		static StateChangeDescriptor of(StateChange change) {
			return new StateChangeDescriptor(change.at(), change.kind().tag(), change.subject(), change.detail(),
					change.until());
		}

	}

}
