package io.github.llmresilience.spend.internal;

import java.time.Clock;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.Supplier;

import io.github.llmresilience.breaker.internal.Breaker;
import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.change.internal.StateChanges;
import io.github.llmresilience.spend.Price;
import io.github.llmresilience.spend.SpendSettings;
import io.github.llmresilience.spend.SpendState;
import io.github.llmresilience.usage.Usage;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The spend of one failure domain: what its answers cost in the current window, the spend
 * per call of its past windows, and the judgement that compares the two.
 *
 * <p>
 * The figure judged is the window's <em>spend per call</em> (its spend divided by its
 * answers), against the median of the same figure over the last {@code history} windows.
 * A window's total would rise with traffic as well: twice the calls at the same size is
 * growth, not a runaway, and leaves the spend per call where it was; answers four times
 * longer raise it fourfold whatever the traffic. A window is judged once it holds
 * {@code min-calls} answers, and only after {@code min-windows} past windows with as
 * many.
 *
 * <p>
 * A window whose spend per call reached {@code open-multiple} stays out of the history: a
 * runaway must not teach the median its own level. The breaker then opens again whenever
 * it closes while the spend per call is still that high, until the spend falls back or an
 * operator closes or resets the breaker, which also forgets the history (the new level is
 * learnt over {@code min-windows} windows). After a window tripped, and while tripped in
 * a window too young to judge, each answer is judged alone: the breaker's trial then
 * opens it again at once when its answer is still the runaway's, and leaves it closed
 * when the answers are back to their size, whatever the window's figure so far.
 *
 * <p>
 * Each change of level is published once: {@code spend-alert} when the spend per call
 * reaches {@code alert-multiple}, {@code spend-tripped} at {@code open-multiple} (and the
 * breaker's own {@code breaker-opened}), {@code spend-normal} when a whole window is
 * below the alert again. Levels rise on any answer of a judged window, and fall only when
 * a window ends, so a figure wavering around a threshold publishes once per window at
 * most.
 */
public final class DomainSpend {

	private static final Logger logger = LoggerFactory.getLogger(DomainSpend.class);

	/**
	 * The most tokens one answer may report and still be believed: ten times the largest
	 * context window offered today. Beyond it the usage is garbage and counts nothing.
	 */
	static final long MAX_TOKENS = 100_000_000L;

	/** Where a domain's spend per call stands against its median. */
	public enum Level {

		/** Below {@code alert-multiple}, or not judged yet. */
		NORMAL,

		/** At {@code alert-multiple} or above. */
		ALERT,

		/** At {@code open-multiple} or above: the breaker was opened. */
		TRIPPED

	}

	private final String domain;

	private final @Nullable Price price;

	private final SpendSettings settings;

	private final long windowMillis;

	private final Clock clock;

	private final StateChanges events;

	private final Breaker breaker;

	// Guarded by this.

	private long windowIndex = Long.MIN_VALUE;

	private double windowSpend;

	private long windowCalls;

	/** Whether the current window reached {@code open-multiple}. */
	private boolean windowTripped;

	/** The spend per call of past windows, a ring. */
	private final double[] history;

	private int historySize;

	private int historyNext;

	/** The median of the history, kept until the history changes. */
	private double median;

	private Level level = Level.NORMAL;

	/** Whether the level fell back to normal and no event said so yet. */
	private boolean fellToNormal;

	/** This pod's answers of the current window not yet sent to the fleet. */
	private long unsentCalls;

	private double unsentSpend;

	DomainSpend(String domain, @Nullable Price price, SpendSettings settings, Clock clock, StateChanges events,
			Breaker breaker) {
		this.domain = domain;
		this.price = price;
		this.settings = settings;
		this.windowMillis = settings.window().toMillis();
		this.clock = clock;
		this.events = events;
		this.breaker = breaker;
		this.history = new double[settings.history()];
	}

	public String domain() {
		return this.domain;
	}

	/** The target's price, or {@code null} when spend is counted in tokens. */
	public @Nullable Price price() {
		return this.price;
	}

	/** {@code price} when a price is set, else {@code tokens}. */
	public String unit() {
		return unit(this.price);
	}

	static String unit(@Nullable Price price) {
		return (price != null) ? "price" : "tokens";
	}

	/**
	 * What one answer spent: money at the price, or its tokens; {@code -1} when the usage
	 * is not believable (negative, or beyond {@link #MAX_TOKENS}), which counts nothing.
	 */
	public static double spendOf(@Nullable Price price, long inputTokens, long outputTokens) {
		if (inputTokens < 0 || outputTokens < 0 || inputTokens > MAX_TOKENS || outputTokens > MAX_TOKENS) {
			return -1;
		}
		return (price != null) ? price.cost(inputTokens, outputTokens) : (double) (inputTokens + outputTokens);
	}

	/**
	 * Count one answer's usage, when spend is judged at all: the usage is read only then
	 * (a body is parsed for it). No usage counts nothing, not even a call. Never throws.
	 * @param usage the answer's usage, or {@code null} when it told none
	 */
	public void record(Supplier<@Nullable Usage> usage) {
		if (!this.settings.enabled()) {
			return;
		}
		Usage used;
		try {
			used = usage.get();
		}
		catch (RuntimeException ex) {
			logger.debug("Usage of an answer of {} unreadable", this.domain, ex);
			return;
		}
		if (used != null) {
			record(used.inputTokens(), used.outputTokens());
		}
	}

	/**
	 * Count one answer's usage and judge the window; may publish a level's change and
	 * open the breaker. Never throws: a served answer is never failed by its bill.
	 */
	public void record(long inputTokens, long outputTokens) {
		if (!this.settings.enabled()) {
			return;
		}
		try {
			double spend = spendOf(this.price, inputTokens, outputTokens);
			if (spend < 0) {
				return;
			}
			Judgement judgement;
			synchronized (this) {
				roll(this.clock.millis());
				Level rolled = this.level;
				boolean fell = takeFall();
				this.windowSpend += spend;
				this.windowCalls++;
				this.unsentSpend += spend;
				this.unsentCalls++;
				double ratio;
				if (this.windowTripped) {
					// The window's figure is the runaway's already: after the breaker's
					// trial, what tells is whether this answer is still that long.
					ratio = judgeAlone(spend);
				}
				else {
					ratio = judge();
					if (ratio < 0 && this.level == Level.TRIPPED) {
						ratio = judgeAlone(spend);
					}
				}
				judgement = new Judgement(fell, rolled, this.level, ratio,
						(this.windowCalls >= this.settings.minCalls()) ? this.windowSpend / this.windowCalls : spend,
						this.median, (this.windowCalls >= this.settings.minCalls()) ? this.windowCalls : 1,
						this.historySize);
			}
			act(judgement);
		}
		catch (RuntimeException ex) {
			logger.warn("Spend of {} not judged", this.domain, ex);
		}
	}

	/**
	 * Close the windows that ended before {@code now}: a window with enough answers joins
	 * the history (unless it tripped) and may lower the level.
	 */
	private void roll(long now) {
		long index = Math.floorDiv(now, this.windowMillis);
		if (index == this.windowIndex) {
			return;
		}
		if (this.windowIndex != Long.MIN_VALUE && this.windowCalls >= this.settings.minCalls()) {
			double perCall = this.windowSpend / this.windowCalls;
			if (this.historySize >= this.settings.minWindows() && this.median > 0) {
				// A whole window decides whether the level falls; a window with too few
				// answers says nothing.
				Level ended = levelOf(perCall / this.median);
				if (ended.compareTo(this.level) < 0) {
					this.fellToNormal |= (ended == Level.NORMAL);
					this.level = ended;
				}
			}
			if (!this.windowTripped) {
				remember(perCall);
			}
		}
		this.windowIndex = index;
		this.windowSpend = 0;
		this.windowCalls = 0;
		this.windowTripped = false;
		// What the fleet has not heard of the closed window is dropped: sent now, it
		// would count in the new one.
		this.unsentSpend = 0;
		this.unsentCalls = 0;
	}

	private boolean takeFall() {
		boolean fell = this.fellToNormal;
		this.fellToNormal = false;
		return fell;
	}

	private void remember(double perCall) {
		this.history[this.historyNext] = perCall;
		this.historyNext = (this.historyNext + 1) % this.history.length;
		if (this.historySize < this.history.length) {
			this.historySize++;
		}
		double[] sorted = Arrays.copyOf(this.history, this.historySize);
		Arrays.sort(sorted);
		int middle = sorted.length / 2;
		this.median = (sorted.length % 2 == 1) ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
	}

	/**
	 * Judge the current window: the level may rise.
	 * @return the spend per call as a multiple of the median, or {@code -1} when not
	 * judged
	 */
	private double judge() {
		if (this.historySize < this.settings.minWindows() || this.windowCalls < this.settings.minCalls()
				|| !(this.median > 0)) {
			return -1;
		}
		double ratio = (this.windowSpend / this.windowCalls) / this.median;
		Level now = levelOf(ratio);
		if (now.compareTo(this.level) > 0) {
			this.level = now;
		}
		if (now == Level.TRIPPED) {
			this.windowTripped = true;
		}
		return ratio;
	}

	/**
	 * Judge one answer alone: while the domain is tripped and its window is too young to
	 * judge (the breaker's trial came in a new window), an answer at the runaway's level
	 * opens the breaker again at once rather than after {@code min-calls} more.
	 * @return its spend as a multiple of the median when that opens the breaker, else
	 * {@code -1}
	 */
	private double judgeAlone(double spend) {
		if (this.historySize < this.settings.minWindows() || !(this.median > 0)) {
			return -1;
		}
		double ratio = spend / this.median;
		if (ratio < this.settings.openMultiple()) {
			return -1;
		}
		this.windowTripped = true;
		return ratio;
	}

	private Level levelOf(double ratio) {
		if (ratio >= this.settings.openMultiple()) {
			return Level.TRIPPED;
		}
		return (ratio >= this.settings.alertMultiple()) ? Level.ALERT : Level.NORMAL;
	}

	/** Publish the changes of level and open the breaker, outside the lock. */
	private void act(Judgement judgement) {
		if (judgement.fell()) {
			this.events.publish(StateChange.Kind.SPEND_NORMAL, this.domain,
					"spend per call back below " + this.settings.alertMultiple() + "× the median", null);
		}
		if (judgement.ratio() < 0) {
			return;
		}
		String detail = judgement.describe(unit());
		if (judgement.after() != Level.NORMAL && judgement.rolled() == Level.NORMAL) {
			this.events.publish(StateChange.Kind.SPEND_ALERT, this.domain, detail, null);
		}
		if (judgement.after() == Level.TRIPPED && judgement.rolled() != Level.TRIPPED) {
			this.events.publish(StateChange.Kind.SPEND_TRIPPED, this.domain, detail, null);
		}
		if (judgement.ratio() >= this.settings.openMultiple()) {
			// A no-op unless the breaker is closed: opened once per crossing, and again
			// when it closes while the spend is still this high.
			this.breaker.openOnSpend(detail);
		}
	}

	// Fleet mode: the window's figures are the fleet's, the history each pod's own.

	/**
	 * What this pod counted of the current window since its last sync, to be added to the
	 * fleet's window; the count starts again from zero.
	 * @return the window's index (its start divided by its length), the answers and their
	 * spend; {@code null} when spend is not judged
	 */
	public synchronized @Nullable Unsent takeUnsent() {
		if (!this.settings.enabled()) {
			return null;
		}
		roll(this.clock.millis());
		Unsent unsent = new Unsent(this.windowIndex, this.windowMillis, this.unsentCalls, this.unsentSpend);
		this.unsentCalls = 0;
		this.unsentSpend = 0;
		return unsent;
	}

	/** The fleet's store was not reached: keep what was taken for the next sync. */
	public synchronized void giveBack(Unsent unsent) {
		if (unsent.window() == this.windowIndex) {
			this.unsentCalls += unsent.calls();
			this.unsentSpend += unsent.spend();
		}
	}

	/**
	 * The fleet's figures of a window, this pod's sent ones included: they become the
	 * current window's, with what this pod counted since, and are judged like this pod's
	 * own. Figures of another window (a sync across a window's edge) are left.
	 */
	public void follow(long window, long calls, double spend) {
		if (!this.settings.enabled() || calls < 0 || !(spend >= 0) || Double.isInfinite(spend)) {
			return;
		}
		try {
			Judgement judgement;
			synchronized (this) {
				roll(this.clock.millis());
				Level rolled = this.level;
				boolean fell = takeFall();
				if (window != this.windowIndex || calls < this.windowCalls - this.unsentCalls) {
					// Another window, or fewer answers than this pod alone has sent:
					// stale.
					this.fellToNormal |= fell;
					return;
				}
				this.windowCalls = calls + this.unsentCalls;
				this.windowSpend = spend + this.unsentSpend;
				// A window that tripped is judged answer by answer, on this pod's own.
				double ratio = this.windowTripped ? -1 : judge();
				judgement = new Judgement(fell, rolled, this.level, ratio,
						(this.windowCalls > 0) ? this.windowSpend / this.windowCalls : 0, this.median, this.windowCalls,
						this.historySize);
			}
			act(judgement);
		}
		catch (RuntimeException ex) {
			logger.warn("Fleet spend of {} not judged", this.domain, ex);
		}
	}

	/**
	 * What a pod sends the fleet of one domain's window.
	 *
	 * @param window the window's index: its start divided by its length, in epoch millis
	 * @param windowMillis the window's length
	 * @param calls answers with usage counted since the last sync
	 * @param spend their spend
	 */
	public record Unsent(long window, long windowMillis, long calls, double spend) {
	}

	/**
	 * Forget the history and the level: an operator closed or reset the domain's breaker
	 * (here or, in fleet mode, on another pod), accepting the spend as it is now.
	 */
	public synchronized void forget() {
		this.historySize = 0;
		this.historyNext = 0;
		this.median = 0;
		this.windowSpend = 0;
		this.windowCalls = 0;
		this.windowTripped = false;
		this.level = Level.NORMAL;
		this.fellToNormal = false;
	}

	/** What this domain's spend looks like now. */
	public synchronized SpendState snapshot() {
		roll(this.clock.millis());
		double perCall = (this.windowCalls > 0) ? this.windowSpend / this.windowCalls : 0;
		double ratio = (this.median > 0 && this.windowCalls > 0) ? perCall / this.median : 0;
		return new SpendState(this.domain, unit(), this.level.name().toLowerCase(Locale.ROOT), this.windowCalls,
				this.windowSpend, perCall, this.median, ratio, this.historySize);
	}

	private record Judgement(boolean fell, Level rolled, Level after, double ratio, double perCall, double median,
			long calls, int windows) {

		String describe(String unit) {
			return String.format(Locale.ROOT,
					"spend per call %.2f× the median of %d windows (%.4g %s per call against %.4g, %d calls)",
					this.ratio, this.windows, this.perCall, unit, this.median, this.calls);
		}

	}

}
