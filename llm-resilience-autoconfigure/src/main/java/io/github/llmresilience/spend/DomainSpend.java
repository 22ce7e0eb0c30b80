package io.github.llmresilience.spend;

import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

import io.github.llmresilience.breaker.Breaker;
import io.github.llmresilience.change.StateChange;
import io.github.llmresilience.change.StateChanges;
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
 * Each answer is held to the median of its own <em>traffic class</em>, the chain and pool
 * of its call, so that a change of mix is not a runaway: a batch job's short answers
 * would pull a median over the whole domain down, and the chat's answers, unchanged,
 * would read four times that median once the batch stopped. The window's ratio is its
 * spend against what its answers would have spent at their classes' medians (with one
 * class, its spend per call against the median). A class without {@code min-windows}
 * windows of {@code min-calls} answers of its own is held to the median of the whole
 * domain's windows.
 *
 * <p>
 * A window whose spend per call reached {@code open-multiple} stays out of the history: a
 * runaway must not teach the median its own level. The breaker then opens again whenever
 * it closes while the spend per call is still that high, until the spend falls back, or
 * the level held steady through {@code adopt-after} whole windows and is adopted (the
 * medians move to it, {@code spend-level-adopted}), or an operator closes or resets the
 * breaker, which forgets the history (the new level is learnt over {@code min-windows}
 * windows). After a window tripped, and while tripped in a window too young to judge,
 * each answer is judged alone: the breaker's trial then opens it again at once when its
 * answer is still the runaway's, and leaves it closed when the answers are back to their
 * size, whatever the window's figure so far.
 *
 * <p>
 * Each change of level is published once: {@code spend-alert} when the spend per call
 * reaches {@code alert-multiple}, {@code spend-tripped} at {@code open-multiple} (and the
 * breaker's own {@code breaker-opened}), {@code spend-normal} when a whole window is
 * below the alert again, {@code spend-level-adopted} when a tripped level becomes the
 * normal. Levels rise on any answer of a judged window, and fall only when a window ends,
 * so a figure wavering around a threshold publishes once per window at most.
 * <p>
 * Engine-facing: public so that the engine and the auto-configuration can use it, not an
 * API for applications, and free to change.
 */
public final class DomainSpend {

	private static final Logger logger = LoggerFactory.getLogger(DomainSpend.class);

	/**
	 * The most tokens one answer may report and still be believed: ten times the largest
	 * context window offered today. Beyond it the usage is garbage and counts nothing.
	 */
	static final long MAX_TOKENS = 100_000_000L;

	/** The chain and pool of answers recorded without a call's. */
	static final String NO_CLASS = "";

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

	/** What the window's answers would have spent at their classes' medians. */
	private double windowExpected;

	/** Whether the current window reached {@code open-multiple}. */
	private boolean windowTripped;

	/** Whether the current window began with the domain tripped. */
	private boolean windowBeganTripped;

	/**
	 * This pod's own answers of the current window, sent to the fleet or not, and what
	 * they would have spent at their classes' medians.
	 */
	private long ownCalls;

	private double ownExpected;

	/** The spend per call of the domain's past windows, all classes together. */
	private final History history;

	/**
	 * The traffic classes, by chain, then pool. Chains and pools are configured, and a
	 * call naming another is refused before it is made: the map is bounded.
	 */
	private final Map<String, Map<String, TrafficClass>> classes = new HashMap<>();

	private Level level = Level.NORMAL;

	/** Whether the level fell back to normal and no event said so yet. */
	private boolean fellToNormal;

	/** What an adoption no event told yet comes to, or {@code null}. */
	private @Nullable String adopted;

	/** The latest whole windows the domain stayed tripped through, oldest first. */
	private final Deque<TrippedWindow> tripped = new ArrayDeque<>();

	/** This pod's answers of the current window not yet sent to the fleet. */
	private long unsentCalls;

	private double unsentSpend;

	private double unsentExpected;

	DomainSpend(String domain, @Nullable Price price, SpendSettings settings, Clock clock, StateChanges events,
			Breaker breaker) {
		this.domain = domain;
		this.price = price;
		this.settings = settings;
		this.windowMillis = settings.window().toMillis();
		this.clock = clock;
		this.events = events;
		this.breaker = breaker;
		this.history = new History(settings.history());
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
	 * @param chain the chain of the call, which with its pool makes the answer's traffic
	 * class
	 * @param pool the pool of the call
	 * @param usage the answer's usage, or {@code null} when it told none
	 */
	public void record(String chain, String pool, Supplier<@Nullable Usage> usage) {
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
			record(chain, pool, used.inputTokens(), used.outputTokens());
		}
	}

	/** Count the usage of an answer of no particular traffic class. */
	void record(long inputTokens, long outputTokens) {
		record(NO_CLASS, NO_CLASS, inputTokens, outputTokens);
	}

	/**
	 * Count one answer's usage and judge the window; may publish a level's change and
	 * open the breaker. Never throws: a served answer is never failed by its bill.
	 * @param chain the chain of the call
	 * @param pool the pool of the call
	 * @param inputTokens the answer's input tokens
	 * @param outputTokens the answer's output tokens
	 */
	public void record(String chain, String pool, long inputTokens, long outputTokens) {
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
				String adoption = takeAdoption();
				TrafficClass trafficClass = trafficClass(chain, pool);
				double reference = reference(trafficClass);
				this.windowSpend += spend;
				this.windowCalls++;
				this.windowExpected += reference;
				this.ownCalls++;
				this.ownExpected += reference;
				this.unsentSpend += spend;
				this.unsentCalls++;
				this.unsentExpected += reference;
				trafficClass.add(spend, reference);
				double ratio;
				boolean alone = this.windowTripped;
				if (alone) {
					// The window's figure is the runaway's already: after the breaker's
					// trial, what tells is whether this answer is still that long.
					ratio = judgeAlone(spend, reference);
				}
				else {
					ratio = judge();
					if (ratio < 0 && this.level == Level.TRIPPED) {
						alone = true;
						ratio = judgeAlone(spend, reference);
					}
				}
				judgement = alone
						? new Judgement(fell, adoption, rolled, this.level, ratio, spend, reference, 1,
								this.history.size())
						: new Judgement(fell, adoption, rolled, this.level, ratio, this.windowSpend / this.windowCalls,
								this.windowExpected / this.windowCalls, this.windowCalls, this.history.size());
			}
			act(judgement);
		}
		catch (RuntimeException ex) {
			logger.warn("Spend of {} not judged", this.domain, ex);
		}
	}

	private TrafficClass trafficClass(String chain, String pool) {
		Map<String, TrafficClass> byPool = this.classes.get(chain);
		if (byPool == null) {
			byPool = new HashMap<>();
			this.classes.put(chain, byPool);
		}
		TrafficClass trafficClass = byPool.get(pool);
		if (trafficClass == null) {
			trafficClass = new TrafficClass(this.settings.history());
			byPool.put(pool, trafficClass);
		}
		return trafficClass;
	}

	/**
	 * What an answer of a class is expected to spend: its class's median once the class
	 * has windows enough, the domain's until then; 0 while the domain is not judged.
	 */
	private double reference(TrafficClass trafficClass) {
		if (this.history.size() < this.settings.minWindows()) {
			return 0;
		}
		return (trafficClass.history.size() >= this.settings.minWindows()) ? trafficClass.history.median()
				: this.history.median();
	}

	/**
	 * Close the window that was current when it ended before {@code now}: a window with
	 * enough answers joins the histories (unless it tripped) and may lower the level; a
	 * window the domain stayed tripped through may adopt the level.
	 */
	private void roll(long now) {
		long index = Math.floorDiv(now, this.windowMillis);
		if (index == this.windowIndex) {
			return;
		}
		if (this.windowIndex != Long.MIN_VALUE) {
			close();
		}
		this.windowIndex = index;
		this.windowSpend = 0;
		this.windowCalls = 0;
		this.windowExpected = 0;
		this.windowTripped = false;
		this.windowBeganTripped = (this.level == Level.TRIPPED);
		this.ownCalls = 0;
		this.ownExpected = 0;
		// What the fleet has not heard of the closed window is dropped: sent now, it
		// would count in the new one.
		this.unsentSpend = 0;
		this.unsentCalls = 0;
		this.unsentExpected = 0;
		for (Map<String, TrafficClass> byPool : this.classes.values()) {
			for (TrafficClass trafficClass : byPool.values()) {
				trafficClass.clearWindow();
			}
		}
	}

	private void close() {
		int minCalls = this.settings.minCalls();
		if (this.windowCalls >= minCalls) {
			if (this.history.size() >= this.settings.minWindows() && this.windowExpected > 0) {
				// A whole window decides whether the level falls; a window with too few
				// answers says nothing.
				Level ended = levelOf(this.windowSpend / this.windowExpected);
				if (ended.compareTo(this.level) < 0) {
					this.fellToNormal |= (ended == Level.NORMAL);
					this.level = ended;
				}
			}
			if (!this.windowTripped) {
				this.history.remember(this.windowSpend / this.windowCalls);
			}
		}
		if (!this.windowTripped) {
			for (Map<String, TrafficClass> byPool : this.classes.values()) {
				for (TrafficClass trafficClass : byPool.values()) {
					if (trafficClass.windowCalls >= minCalls) {
						trafficClass.history.remember(trafficClass.windowSpend / trafficClass.windowCalls);
					}
				}
			}
		}
		holdOrAdopt();
	}

	/**
	 * Count a whole window the domain stayed tripped through; adopt the level once
	 * {@code adopt-after} such windows in a row held it steady. A window that ends the
	 * domain's trip, or whose answers were back below the alert (too few to lower the
	 * level), ends the count; a window without answers tells nothing either way (the
	 * breaker may have been open throughout).
	 */
	private void holdOrAdopt() {
		if (this.level != Level.TRIPPED || !this.windowBeganTripped) {
			this.tripped.clear();
			return;
		}
		int adoptAfter = this.settings.adoptAfter();
		if (adoptAfter == 0 || this.windowCalls == 0 || !(this.windowExpected > 0)) {
			return;
		}
		double ratio = this.windowSpend / this.windowExpected;
		if (ratio < this.settings.alertMultiple()) {
			this.tripped.clear();
			return;
		}
		List<ClassFigure> figures = new ArrayList<>();
		int minWindows = this.settings.minWindows();
		for (Map<String, TrafficClass> byPool : this.classes.values()) {
			for (TrafficClass trafficClass : byPool.values()) {
				if (trafficClass.windowCalls > 0 && trafficClass.windowExpected > 0
						&& trafficClass.history.size() >= minWindows) {
					figures.add(new ClassFigure(trafficClass, trafficClass.windowSpend, trafficClass.windowExpected));
				}
			}
		}
		this.tripped.addLast(new TrippedWindow(ratio, this.windowSpend, this.windowExpected, figures));
		while (this.tripped.size() > adoptAfter) {
			this.tripped.removeFirst();
		}
		if (this.tripped.size() == adoptAfter && steady()) {
			adopt();
		}
	}

	/**
	 * Whether the tripped windows hold one level: each within {@code alert-multiple} of
	 * their median, as a window of the adopted level would have to be not to alert. A
	 * spend that keeps climbing is a runaway still, not a level.
	 */
	private boolean steady() {
		double[] ratios = this.tripped.stream().mapToDouble(TrippedWindow::ratio).toArray();
		double median = median(ratios, ratios.length);
		double alert = this.settings.alertMultiple();
		for (double ratio : ratios) {
			if (!(ratio < median * alert && ratio * alert > median)) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Adopt the tripped level: every median moves to it. A class heard from in those
	 * windows moves by its own answers' figure; the domain's median and the classes not
	 * heard from move by the windows' figure, the change of a model or a price being the
	 * domain's.
	 */
	private void adopt() {
		double spend = 0;
		double expected = 0;
		Map<TrafficClass, double[]> byClass = new IdentityHashMap<>();
		for (TrippedWindow window : this.tripped) {
			spend += window.spend();
			expected += window.expected();
			for (ClassFigure figure : window.classes()) {
				double[] sums = byClass.computeIfAbsent(figure.trafficClass(), (key) -> new double[2]);
				sums[0] += figure.spend();
				sums[1] += figure.expected();
			}
		}
		double factor = spend / expected;
		double before = this.history.median();
		for (Map<String, TrafficClass> byPool : this.classes.values()) {
			for (TrafficClass trafficClass : byPool.values()) {
				double[] sums = byClass.get(trafficClass);
				trafficClass.history.scale((sums != null) ? sums[0] / sums[1] : factor);
			}
		}
		this.history.scale(factor);
		this.adopted = String.format(Locale.ROOT,
				"spend per call held %.2f× the median through %d windows: adopted as the new level (%.4g %s per call"
						+ " against %.4g); the breaker's trials pass again",
				factor, this.tripped.size(), this.history.median(), unit(), before);
		this.tripped.clear();
		this.level = Level.NORMAL;
		this.fellToNormal = false;
	}

	private boolean takeFall() {
		boolean fell = this.fellToNormal;
		this.fellToNormal = false;
		return fell;
	}

	private @Nullable String takeAdoption() {
		String adoption = this.adopted;
		this.adopted = null;
		return adoption;
	}

	/**
	 * Judge the current window: the level may rise.
	 * @return its spend as a multiple of what its answers would have spent at their
	 * classes' medians, or {@code -1} when not judged
	 */
	private double judge() {
		if (this.history.size() < this.settings.minWindows() || this.windowCalls < this.settings.minCalls()
				|| !(this.windowExpected > 0)) {
			return -1;
		}
		double ratio = this.windowSpend / this.windowExpected;
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
	 * @param reference what the answer was expected to spend
	 * @return its spend as a multiple of the expected when that opens the breaker, else
	 * {@code -1}
	 */
	private double judgeAlone(double spend, double reference) {
		if (!(reference > 0)) {
			return -1;
		}
		double ratio = spend / reference;
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
		publish(judgement.fell(), judgement.adopted());
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

	/** Publish what the end of a window changed, outside the lock. */
	private void publish(boolean fell, @Nullable String adoption) {
		if (fell) {
			this.events.publish(StateChange.Kind.SPEND_NORMAL, this.domain,
					"spend per call back below " + this.settings.alertMultiple() + "× the median", null);
		}
		if (adoption != null) {
			this.events.publish(StateChange.Kind.SPEND_LEVEL_ADOPTED, this.domain, adoption, null);
		}
	}

	// Fleet mode: the window's figures are the fleet's, the history each pod's own.

	/**
	 * What this pod counted of the current window since its last sync, to be added to the
	 * fleet's window; the count starts again from zero.
	 * @return the window's index (its start divided by its length), the answers, their
	 * spend and what they would have spent at their classes' medians; {@code null} when
	 * spend is not judged
	 */
	public @Nullable Unsent takeUnsent() {
		if (!this.settings.enabled()) {
			return null;
		}
		Unsent unsent;
		boolean fell;
		String adoption;
		synchronized (this) {
			roll(this.clock.millis());
			fell = takeFall();
			adoption = takeAdoption();
			unsent = new Unsent(this.windowIndex, this.windowMillis, this.unsentCalls, this.unsentSpend,
					this.unsentExpected);
			this.unsentCalls = 0;
			this.unsentSpend = 0;
			this.unsentExpected = 0;
		}
		publish(fell, adoption);
		return unsent;
	}

	/**
	 * The fleet's figures of a window, this pod's sent ones included: they become the
	 * current window's, with what this pod counted since, and are judged like this pod's
	 * own. Figures of another window (a sync across a window's edge) are left.
	 * @param window the window's index
	 * @param calls the fleet's answers of the window
	 * @param spend their spend
	 * @param expected the sum of the pods' {@link Unsent#expected()} for the window, or
	 * {@code NaN} when the fleet does not sum it: the fleet's answers are then taken to
	 * be mixed as this pod's own (pods behind one balancer see one mix)
	 */
	public void follow(long window, long calls, double spend, double expected) {
		if (!this.settings.enabled() || calls < 0 || !finite(spend) || !(Double.isNaN(expected) || finite(expected))) {
			return;
		}
		try {
			Judgement judgement;
			synchronized (this) {
				roll(this.clock.millis());
				Level rolled = this.level;
				boolean fell = takeFall();
				String adoption = takeAdoption();
				if (window != this.windowIndex || calls < this.windowCalls - this.unsentCalls) {
					// Another window, or fewer answers than this pod alone has sent:
					// stale.
					judgement = new Judgement(fell, adoption, rolled, this.level, -1, 0, 0, 0, 0);
				}
				else {
					this.windowCalls = calls + this.unsentCalls;
					this.windowSpend = spend + this.unsentSpend;
					this.windowExpected = (Double.isNaN(expected) ? estimate(calls) : expected) + this.unsentExpected;
					// A window that tripped is judged answer by answer, on this pod's
					// own.
					double ratio = this.windowTripped ? -1 : judge();
					judgement = new Judgement(fell, adoption, rolled, this.level, ratio,
							(this.windowCalls > 0) ? this.windowSpend / this.windowCalls : 0,
							(this.windowCalls > 0) ? this.windowExpected / this.windowCalls : 0, this.windowCalls,
							this.history.size());
				}
			}
			act(judgement);
		}
		catch (RuntimeException ex) {
			logger.warn("Fleet spend of {} not judged", this.domain, ex);
		}
	}

	private static boolean finite(double value) {
		return value >= 0 && !Double.isInfinite(value);
	}

	/**
	 * What the fleet's answers would have spent at their classes' medians, taken from
	 * this pod's own answers of the window, or from the domain's median when it had none.
	 */
	private double estimate(long calls) {
		double perCall = (this.ownCalls > 0) ? this.ownExpected / this.ownCalls
				: ((this.history.size() >= this.settings.minWindows()) ? this.history.median() : 0);
		return calls * perCall;
	}

	/**
	 * What a pod sends the fleet of one domain's window.
	 *
	 * @param window the window's index: its start divided by its length, in epoch millis
	 * @param windowMillis the window's length
	 * @param calls answers with usage counted since the last sync
	 * @param spend their spend
	 * @param expected what they would have spent at their traffic classes' medians (0
	 * while the domain is not judged); summed by the fleet like {@code spend}, it lets
	 * every pod judge the fleet's window against the fleet's own mix
	 */
	public record Unsent(long window, long windowMillis, long calls, double spend, double expected) {
	}

	/**
	 * Forget the history and the level: an operator closed or reset the domain's breaker
	 * (here or, in fleet mode, on another pod), accepting the spend as it is now.
	 */
	public synchronized void forget() {
		this.history.clear();
		for (Map<String, TrafficClass> byPool : this.classes.values()) {
			for (TrafficClass trafficClass : byPool.values()) {
				trafficClass.history.clear();
				trafficClass.clearWindow();
			}
		}
		this.windowSpend = 0;
		this.windowCalls = 0;
		this.windowExpected = 0;
		this.windowTripped = false;
		this.windowBeganTripped = false;
		this.ownCalls = 0;
		this.ownExpected = 0;
		this.tripped.clear();
		this.level = Level.NORMAL;
		this.fellToNormal = false;
		this.adopted = null;
	}

	/** What this domain's spend looks like now. */
	public SpendState snapshot() {
		SpendState state;
		boolean fell;
		String adoption;
		synchronized (this) {
			roll(this.clock.millis());
			fell = takeFall();
			adoption = takeAdoption();
			double perCall = (this.windowCalls > 0) ? this.windowSpend / this.windowCalls : 0;
			double reference = (this.windowCalls > 0 && this.windowExpected > 0)
					? this.windowExpected / this.windowCalls : this.history.median();
			double ratio = (reference > 0 && this.windowCalls > 0) ? perCall / reference : 0;
			state = new SpendState(this.domain, unit(), this.level.name().toLowerCase(Locale.ROOT), this.windowCalls,
					this.windowSpend, perCall, reference, ratio, this.history.size());
		}
		publish(fell, adoption);
		return state;
	}

	private static double median(double[] values, int size) {
		double[] sorted = Arrays.copyOf(values, size);
		Arrays.sort(sorted);
		int middle = sorted.length / 2;
		return (sorted.length % 2 == 1) ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
	}

	/** The spend per call of past windows, a ring, and its median. */
	private static final class History {

		private final double[] ring;

		private int size;

		private int next;

		/** The median, kept until the history changes. */
		private double median;

		History(int capacity) {
			this.ring = new double[capacity];
		}

		int size() {
			return this.size;
		}

		/** The median; 0 while empty. */
		double median() {
			return this.median;
		}

		void remember(double perCall) {
			this.ring[this.next] = perCall;
			this.next = (this.next + 1) % this.ring.length;
			if (this.size < this.ring.length) {
				this.size++;
			}
			this.median = DomainSpend.median(this.ring, this.size);
		}

		/** Move every window by a factor: a level adopted. */
		void scale(double factor) {
			// The ring is filled from its start: its first size entries are the windows.
			for (int i = 0; i < this.size; i++) {
				this.ring[i] *= factor;
			}
			this.median *= factor;
		}

		void clear() {
			this.size = 0;
			this.next = 0;
			this.median = 0;
		}

	}

	/** The answers of one chain and pool on the domain: their window and history. */
	private static final class TrafficClass {

		private final History history;

		private long windowCalls;

		private double windowSpend;

		private double windowExpected;

		TrafficClass(int history) {
			this.history = new History(history);
		}

		void add(double spend, double expected) {
			this.windowCalls++;
			this.windowSpend += spend;
			this.windowExpected += expected;
		}

		void clearWindow() {
			this.windowCalls = 0;
			this.windowSpend = 0;
			this.windowExpected = 0;
		}

	}

	/** A class's answers in a window the domain stayed tripped through. */
	private record ClassFigure(TrafficClass trafficClass, double spend, double expected) {
	}

	/**
	 * A whole window the domain stayed tripped through: its spend against what it would
	 * have spent at the medians, and its classes' figures.
	 */
	private record TrippedWindow(double ratio, double spend, double expected, List<ClassFigure> classes) {
	}

	private record Judgement(boolean fell, @Nullable String adopted, Level rolled, Level after, double ratio,
			double perCall, double median, long calls, int windows) {

		String describe(String unit) {
			return String.format(Locale.ROOT,
					"spend per call %.2f× the median of %d windows (%.4g %s per call against %.4g, %d calls)",
					this.ratio, this.windows, this.perCall, unit, this.median, this.calls);
		}

	}

}
