package io.github.llmresilience.spend;

import java.time.Duration;

import io.github.llmresilience.settings.InvalidSettingException;

/**
 * How the spend trigger judges each failure domain. Every window (aligned on the epoch,
 * so pods and restarts agree on its edges), a domain's spend per call (money at the
 * target's {@link Price}, or tokens without one) is compared with the median of its last
 * {@code history} windows, each answer with the median of its traffic class (the chain
 * and pool of its call): at {@code alertMultiple} times the median an alert is published,
 * at {@code openMultiple} times the domain's breaker opens, and a tripped level that
 * holds {@code adoptAfter} windows becomes the new normal. A component out of its range
 * fails construction.
 *
 * @param enabled whether spend is judged at all (the spend meter counts either way)
 * @param window the length of one window (1 s to 1 day)
 * @param history how many past windows the median is taken over (3 to 1,000)
 * @param minWindows how many past windows are needed before a domain is judged (1 to
 * {@code history})
 * @param minCalls how many answers with usage a window needs to be judged, and to join
 * the history (1 to 1,000,000)
 * @param openMultiple the spend per call, as a multiple of the median, that opens the
 * breaker (above 1, at most 1,000, above {@code alertMultiple})
 * @param alertMultiple the spend per call, as a multiple of the median, that publishes an
 * alert (above 1, below {@code openMultiple})
 * @param adoptAfter how many whole windows a tripped level must hold, steady, before it
 * is adopted as the domain's new normal and its breaker's trials pass again (0 to 1,000;
 * 0 never adopts: only an operator's close or reset does)
 */
public record SpendSettings(boolean enabled, Duration window, int history, int minWindows, int minCalls,
		double openMultiple, double alertMultiple, int adoptAfter) {

	/** The default {@link #window()}: 5 minutes. */
	public static final Duration DEFAULT_WINDOW = Duration.ofMinutes(5);

	/** The default {@link #history()}: 12 windows, an hour at the default window. */
	public static final int DEFAULT_HISTORY = 12;

	/** The default {@link #minWindows()}: 3 windows. */
	public static final int DEFAULT_MIN_WINDOWS = 3;

	/** The default {@link #minCalls()}: 10 answers. */
	public static final int DEFAULT_MIN_CALLS = 10;

	/** The default {@link #openMultiple()}: 3 times the median. */
	public static final double DEFAULT_OPEN_MULTIPLE = 3.0;

	/** The default {@link #alertMultiple()}: 2 times the median. */
	public static final double DEFAULT_ALERT_MULTIPLE = 2.0;

	/**
	 * The default {@link #adoptAfter()}: 6 windows, half an hour at the default window.
	 * Long enough for the engineer that {@code spend-tripped} paged to look while the
	 * breaker holds the bill; short enough that a level misjudged (a change of traffic
	 * mix within one class) costs half an hour on the next target, not the day.
	 */
	public static final int DEFAULT_ADOPT_AFTER = 6;

	/**
	 * Check every component.
	 * @throws IllegalArgumentException naming the first component out of its range, the
	 * range and the value
	 */
	public SpendSettings {
		if (window == null || window.compareTo(Duration.ofSeconds(1)) < 0 || window.compareTo(Duration.ofDays(1)) > 0) {
			throw new InvalidSettingException("window", "must be between 1 s and 1 day", window);
		}
		requireRange("history", history, 3, 1000);
		if (minWindows < 1 || minWindows > history) {
			throw new InvalidSettingException("minWindows", "must be between 1 and", "history", history, minWindows);
		}
		requireRange("minCalls", minCalls, 1, 1_000_000);
		if (!(alertMultiple > 1 && alertMultiple <= 1000)) {
			throw new InvalidSettingException("alertMultiple", "must be above 1 and at most 1000", alertMultiple);
		}
		if (!(openMultiple > 1 && openMultiple <= 1000)) {
			throw new InvalidSettingException("openMultiple", "must be above 1 and at most 1000", openMultiple);
		}
		if (!(openMultiple > alertMultiple)) {
			throw new InvalidSettingException("openMultiple", "must be above", "alertMultiple", alertMultiple,
					openMultiple);
		}
		requireRange("adoptAfter", adoptAfter, 0, 1000);
	}

	/**
	 * Settings that adopt a tripped level after {@link #DEFAULT_ADOPT_AFTER} windows.
	 * @throws IllegalArgumentException naming the first component out of its range
	 */
	public SpendSettings(boolean enabled, Duration window, int history, int minWindows, int minCalls,
			double openMultiple, double alertMultiple) {
		this(enabled, window, history, minWindows, minCalls, openMultiple, alertMultiple, DEFAULT_ADOPT_AFTER);
	}

	/** Off, with the default thresholds ready for when it is turned on. */
	public static SpendSettings defaults() {
		return new SpendSettings(false, DEFAULT_WINDOW, DEFAULT_HISTORY, DEFAULT_MIN_WINDOWS, DEFAULT_MIN_CALLS,
				DEFAULT_OPEN_MULTIPLE, DEFAULT_ALERT_MULTIPLE, DEFAULT_ADOPT_AFTER);
	}

	/** The same thresholds, judged. */
	public SpendSettings enable() {
		return new SpendSettings(true, this.window, this.history, this.minWindows, this.minCalls, this.openMultiple,
				this.alertMultiple, this.adoptAfter);
	}

	private static void requireRange(String name, int value, int min, int max) {
		if (value < min || value > max) {
			throw new InvalidSettingException(name, "must be between " + min + " and " + max, value);
		}
	}

}
