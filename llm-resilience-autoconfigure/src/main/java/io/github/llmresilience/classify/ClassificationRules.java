package io.github.llmresilience.classify;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jspecify.annotations.Nullable;

/**
 * The user's classification rules in force: the one place they live, read by every
 * classification (the next call uses an edit) and changed only through this object, whose
 * listeners hear of every edit. The list is replaced whole on every edit, never changed
 * in place, so a classification reads one consistent list without a lock.
 *
 * <p>
 * {@link #replace(List, String)} takes a whole list from elsewhere (another pod of a
 * fleet, a store that survived a restart): a listener that propagates edits should ignore
 * the edits it made itself, by their {@link Edit#source()}.
 */
public final class ClassificationRules {

	/** The most rules kept: each answer is matched against all of them in turn. */
	public static final int MAX_RULES = 100;

	/** The {@link Edit#source()} of an edit through the actuator endpoint. */
	public static final String OPERATOR = "operator";

	private volatile List<ClassificationRule> rules;

	private volatile @Nullable Set<String> providers;

	private final List<Listener> listeners = new CopyOnWriteArrayList<>();

	/** No rules. */
	public ClassificationRules() {
		this(List.of());
	}

	/**
	 * @param rules the rules at startup, in the order they are tried
	 * @throws IllegalArgumentException for more than {@link #MAX_RULES} rules
	 */
	public ClassificationRules(List<ClassificationRule> rules) {
		this.rules = checked(rules);
	}

	/** The rules in force, in the order they are tried; an unmodifiable snapshot. */
	public List<ClassificationRule> rules() {
		return this.rules;
	}

	/**
	 * The provider ids a rule may name, so that an edit naming another (a typo) is
	 * refused; {@code null} accepts any. Set once the classifiers are known.
	 */
	public void knownProviders(@Nullable Collection<String> providers) {
		this.providers = (providers != null) ? Set.copyOf(new TreeSet<>(providers)) : null;
	}

	/** Be told about every edit, after it took effect. */
	public void addListener(Listener listener) {
		this.listeners.add(Objects.requireNonNull(listener, "listener"));
	}

	/**
	 * Add a rule.
	 * @param index where it goes (0 is tried first), or {@code null} for the end
	 * @throws IllegalArgumentException when the index is out of range, the provider is
	 * unknown or the list is full; nothing changes then
	 */
	public synchronized void add(@Nullable Integer index, ClassificationRule rule, String source) {
		List<ClassificationRule> next = new ArrayList<>(this.rules);
		int at = (index != null) ? index : next.size();
		if (at < 0 || at > next.size()) {
			throw new IllegalArgumentException("index must be between 0 and " + next.size() + ", was " + at);
		}
		requireKnownProvider(rule);
		next.add(at, rule);
		apply(new Edit(Edit.Action.ADDED, at, rule, checked(next), source));
	}

	/**
	 * Replace the rule at an index.
	 * @throws IllegalArgumentException when no rule has that index or the provider is
	 * unknown; nothing changes then
	 */
	public synchronized void replace(int index, ClassificationRule rule, String source) {
		List<ClassificationRule> next = new ArrayList<>(this.rules);
		requireIndex(index, next.size());
		requireKnownProvider(rule);
		next.set(index, rule);
		apply(new Edit(Edit.Action.REPLACED, index, rule, checked(next), source));
	}

	/**
	 * Remove the rule at an index.
	 * @throws IllegalArgumentException when no rule has that index; nothing changes then
	 */
	public synchronized void remove(int index, String source) {
		List<ClassificationRule> next = new ArrayList<>(this.rules);
		requireIndex(index, next.size());
		ClassificationRule removed = next.remove(index);
		apply(new Edit(Edit.Action.REMOVED, index, removed, checked(next), source));
	}

	/**
	 * Replace every rule at once.
	 * @param rules the new rules, in order
	 * @param source who sent them, such as {@code fleet}
	 * @throws IllegalArgumentException for more than {@link #MAX_RULES} rules; nothing
	 * changes then
	 */
	public synchronized void replace(List<ClassificationRule> rules, String source) {
		apply(new Edit(Edit.Action.REPLACED_ALL, -1, null, checked(rules), source));
	}

	private void apply(Edit edit) {
		this.rules = edit.rules();
		for (Listener listener : this.listeners) {
			try {
				listener.edited(edit);
			}
			catch (RuntimeException ex) {
				// The edit has taken effect; a listener's failure does not undo it.
			}
		}
	}

	private void requireKnownProvider(ClassificationRule rule) {
		Set<String> known = this.providers;
		if (known != null && rule.provider() != null && !known.contains(rule.provider())) {
			throw new IllegalArgumentException("provider must be a provider id with a classifier: "
					+ String.join(", ", new TreeSet<>(known)) + ", was '" + rule.provider() + "'");
		}
	}

	private static void requireIndex(int index, int size) {
		if (index < 0 || index >= size) {
			throw new IllegalArgumentException((size == 0) ? "index names no rule: there are no rules, was " + index
					: "index must be between 0 and " + (size - 1) + ", was " + index);
		}
	}

	private static List<ClassificationRule> checked(List<ClassificationRule> rules) {
		List<ClassificationRule> copy = List.copyOf(rules);
		if (copy.size() > MAX_RULES) {
			throw new IllegalArgumentException(
					"rules must be at most " + MAX_RULES + " in number, was " + copy.size() + " rules");
		}
		return copy;
	}

	/** Told about every edit of the rules. */
	@FunctionalInterface
	public interface Listener {

		/** Called after the edit took effect, on the editing thread; must not throw. */
		void edited(Edit edit);

	}

	/**
	 * One edit.
	 *
	 * @param action what was done
	 * @param index the index edited, or -1 when the whole list was replaced
	 * @param rule the rule added, put in place, or removed; {@code null} when the whole
	 * list was replaced
	 * @param rules every rule in force after the edit
	 * @param source who edited: {@link ClassificationRules#OPERATOR}, or what a caller of
	 * {@link ClassificationRules#replace(List, String)} named
	 */
	public record Edit(Action action, int index, @Nullable ClassificationRule rule, List<ClassificationRule> rules,
			String source) {

		/** The kinds of edit. */
		public enum Action {

			ADDED, REPLACED, REMOVED, REPLACED_ALL

		}

		/** The edit as one line, for logs and events. */
		public String describe() {
			String what = switch (this.action) {
				case ADDED -> "added rules[" + this.index + "]: " + describe(this.rule);
				case REPLACED -> "replaced rules[" + this.index + "]: " + describe(this.rule);
				case REMOVED -> "removed rules[" + this.index + "]: " + describe(this.rule);
				case REPLACED_ALL -> "replaced every rule";
			};
			return what + " (" + this.rules.size() + " in force, by " + this.source + ")";
		}

		private static String describe(@Nullable ClassificationRule rule) {
			return (rule != null) ? rule.describe() : "";
		}

	}

}
